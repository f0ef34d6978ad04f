"""No protocol code repeated across thread packages: the VP runtime
(ulib/rt/rt_*.c, <animart/vprt.h>) holds it once, and a package is its policy. A
crude duplicate-code scan: comments and blank lines dropped, whitespace
normalized, lone braces, #include lines and the like ignored; no window of WINDOW such
lines may appear in two files of threadpkgs/ and ulib/. (Before the
runtime, tutor's and fifo's upcall handling, event drain and VP start-up
were such runs.)"""
import re
from harness import ROOT

WINDOW = 6
TRIVIAL = {"{", "}", "};", "break;", "return 0;", "else", "default:"}


def code_lines(path):
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    out = []
    for line in text.splitlines():
        line = re.sub(r"\s+", " ", re.sub(r"//.*", "", line).strip())
        if line and line not in TRIVIAL and not line.startswith("#include"):
            out.append(line)
    return out


def test_no_code_run_in_two_files():
    files = sorted([*ROOT.glob("threadpkgs/*/*.c"), *ROOT.glob("threadpkgs/*/*.h"),
                    *ROOT.glob("ulib/*/*.c"), *ROOT.glob("common/*.c"),
                    *ROOT.glob("ulib/include/*.h"), *ROOT.glob("ulib/*/include/*/*.h")])
    first, dups = {}, []
    for f in files:
        lines = code_lines(f)
        for i in range(len(lines) - WINDOW + 1):
            key = "\n".join(lines[i:i + WINDOW])
            if key in first and first[key] != f:
                dups.append(f"{first[key].relative_to(ROOT)} and {f.relative_to(ROOT)}:\n    "
                            + key.replace("\n", "\n    "))
            first.setdefault(key, f)
    assert not dups, "the same code in two files:\n  " + "\n  ".join(dups[:5])
