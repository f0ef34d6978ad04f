"""The source tree's layering (docs/architecture.md, "Source layout").

The folder graph is derived from the #include lines: a file in folder A
including a header that the build resolves (with the Makefile's own -I
flags) to folder B is an arrow A -> B. It must have no circle, and the
kernel (kernel/, boot/) must include nothing under ulib/: it shares only
kernel/include/anima/ (the ABI) and common/. And every source file is named
in architecture.md's layout table, so the table is the map of the tree.
(A header only the compiler has, stddef.h say, is no arrow.) Without QEMU."""
import fnmatch
import re
import shlex
import subprocess

from harness import BUILD, ROOT

SRC_DIRS = ("boot", "kernel", "common", "ulib", "threadpkgs", "progs")
TABLE_DIRS = ("boot", "kernel", "common", "ulib", "threadpkgs")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def make_var(name):
    return subprocess.run(["make", "-s", f"print-{name}"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()


def include_dirs(var):
    return [ROOT / a[2:] for a in shlex.split(make_var(var)) if a.startswith("-I")]


def folder(rel):
    """The folder a file belongs to, as the layering sees it: ulib/rt,
    ulib/pthread, ulib/libc, ulib/include, kernel/include, each package
    of threadpkgs/, each kind of progs/; otherwise its top folder."""
    parts = rel.split("/")
    if parts[0] in ("ulib", "threadpkgs", "progs") and len(parts) > 2:
        return "/".join(parts[:2])
    if parts[:2] == ["kernel", "include"]:
        return "kernel/include"
    return parts[0]


def sources(dirs, exts=(".c", ".S", ".h")):
    for d in dirs:
        for f in sorted((ROOT / d).rglob("*")):
            if f.suffix in exts and f.is_file():
                yield f


def edges():
    """(from folder, to folder, file, header) for every resolved include."""
    kinc, uinc = include_dirs("KCFLAGS"), include_dirs("UCFLAGS")
    out = []
    for f in sources(SRC_DIRS):
        rel = str(f.relative_to(ROOT))
        # Kernel-side files resolve as the kernel build does; the ABI and
        # common/ are built on both sides, and must stand on the kernel's.
        path = kinc if folder(rel) in ("kernel", "boot", "kernel/include", "common") else uinc
        if rel.startswith("progs/ported/ownhdrs"):
            path = [ROOT / "progs/ported/ownhdrs/include"] + path   # its flags.mk
        for kind, name in INCLUDE.findall(f.read_text(errors="replace")):
            cands = ([f.parent] if kind == '"' else []) + path
            hit = next((d / name for d in cands if (d / name).is_file()), None)
            if hit is None:
                continue                  # the compiler's own (stddef.h, ...)
            to = str(hit.resolve().relative_to(ROOT))
            if folder(to) != folder(rel):
                out.append((folder(rel), folder(to), rel, to))
    return out


def cycle(graph):
    """A circle in graph {node: set(nodes)} as a list of nodes, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def test_no_folder_circle():
    es = edges()
    graph = {}
    for a, b, _, _ in es:
        graph.setdefault(a, set()).add(b)
    c = cycle(graph)
    if c:
        why = [next(f"{f} -> {h}" for a, b, f, h in es if (a, b) == (x, y))
               for x, y in zip(c, c[1:])]
        raise AssertionError("folders include each other in a circle: " + " -> ".join(c)
                             + "\n  " + "\n  ".join(why))
    # The layers this tree has (so a test that finds no arrows is no test).
    assert "ulib/rt" in graph["ulib/pthread"] and "ulib/rt" in graph["ulib/libc"], graph
    assert "ulib/rt" in graph["threadpkgs/fifo"], graph


def test_kernel_includes_nothing_of_ulib():
    bad = [f"{f} -> {h}" for a, b, f, h in edges()
           if a in ("kernel", "boot", "kernel/include", "common") and b.startswith("ulib")]
    assert not bad, bad
    flags = make_var("KCFLAGS") + " " + make_var("KSRC")
    assert "ulib" not in flags, flags


def test_cycle_finder_finds_one():
    # The check above can fail: a circle is found, a line is not.
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": {"c"}}) is None


def expand(token, last_dir):
    """The paths one backticked name of the table stands for: a brace list
    (`kernel/{cap,vp}.c`; an item with its own extension keeps it), a name
    without a folder (the previous name's), or a glob."""
    if "/" not in token.split("{")[0] and last_dir:
        token = last_dir + "/" + token
    m = re.fullmatch(r"(.*)\{([^}]*)\}(.*)", token)
    if not m:
        return [token]
    pre, items, suf = m.groups()
    return [pre + i if "." in i else pre + i + suf for i in items.split(",")]


def table_names():
    text = (ROOT / "docs" / "architecture.md").read_text()
    sec = text.split("## Source layout", 1)[1].split("\n## ", 1)[0]
    names = []
    for line in sec.splitlines():
        if not line.startswith("| `"):
            continue
        last_dir = ""
        for tok in re.findall(r"`([^`]+)`", line.split("|")[1]):
            for n in expand(tok, last_dir):
                names.append(n)
            last_dir = tok.split("{")[0].rsplit("/", 1)[0] if "/" in tok else last_dir
    return names


def test_every_source_file_is_in_the_layout_table():
    names = table_names()
    files = [str(f.relative_to(ROOT)) for f in sources(TABLE_DIRS)]
    missing = [f for f in files if not any(fnmatch.fnmatchcase(f, n) for n in names)]
    assert not missing, "not named in docs/architecture.md's layout table: " + " ".join(missing)
    # and the table names nothing that is not there
    stale = [n for n in names if not any(fnmatch.fnmatchcase(f, n) for f in files)
             and not (ROOT / n).exists()]
    assert not stale, "named in the layout table but not in the tree: " + " ".join(stale)


def test_table_lists_layers_bottom_up():
    # architecture.md says a folder includes only folders listed above it.
    order = []
    for n in table_names():
        f = folder(n.replace("*", "x").replace("{", "").replace("}", ""))
        f = "threadpkgs" if f.startswith("threadpkgs") else f
        if f not in order:
            order.append(f)
    rank = lambda f: order.index("threadpkgs" if f.startswith("threadpkgs") else f)
    bad = [f"{f} -> {h}" for a, b, f, h in edges()
           if not a.startswith("progs") and rank(b) > rank(a)]
    assert not bad, f"includes a folder listed below it ({order}): {bad[:5]}"


def kernel_h_misplaced(header_text, defined_in):
    """kernel.h's entries listed under a file that does not define them:
    [(name, section, [defining files])]. A section starts at a comment
    naming files (`/* seg.c */`, `/* uaccess.S / uaccess.c */`)."""
    out, sec = [], None
    for line in header_text.splitlines():
        m = re.fullmatch(r"/\* ([\w./ ]+?)(?: \(.*\))? \*/", line.strip())
        if m and re.search(r"\.[cS]\b", m.group(1)):
            sec = m.group(1)
            continue
        if not sec or line.startswith((" ", "\t", "#", "static", "}", "{", "/*")):
            continue
        for n in re.findall(r"\**(\w+)\s*(?:\(|\[\w*\]\s*;|;|,)", line):
            if n in defined_in and not any(f in sec for f in defined_in[n]):
                out.append((n, sec, defined_in[n]))
    return out


def test_kernel_h_lists_each_entry_under_its_file(built):
    # kernel.h says it is grouped by the file that defines each entry:
    # checked against the symbols each kernel object defines (nm).
    defined_in = {}
    for o in sorted((BUILD / "k" / "kernel").glob("*.o")):
        nm = subprocess.run(["nm", "--defined-only", str(o)], capture_output=True, text=True,
                            check=True).stdout
        for l in nm.splitlines():
            kind, name = l.split()[1:3]
            if kind in "TDBR":
                defined_in.setdefault(name, []).append(o.name[:-2])
    assert "seg_wake_all" in defined_in, sorted(defined_in)[:20]
    bad = kernel_h_misplaced((ROOT / "kernel" / "kernel.h").read_text(), defined_in)
    assert not bad, "kernel.h lists these under a file that does not define them: " + \
        "; ".join(f"{n} under {s} (defined in {', '.join(d)})" for n, s, d in bad)
    # and the check can fail: an entry moved under another file is found
    assert kernel_h_misplaced("/* seg.c */\nvoid seg_wake_all(struct space *sp);\n", defined_in)
