"""harness/modset.py: a direct boot loads the programs its command line
can reach, not all of them. Without QEMU."""
import re

from harness import ROOT, iso, modset, qemu

LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def fake_progs(tmp_path, files):
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return {name: tmp_path / name for name in files}


def test_the_closure_of_the_names(tmp_path):
    progs = fake_progs(tmp_path, {
        "shell": b"\x7fELF\0/bin/echo %s\0",       # names echo
        "echo": b"\0usage: echo\0concat\0",         # its own name; "cat" ends "concat"
        "cat": b"\0read\0",
        "lone": b"\0hello\0",
        "hello": b"\0world\0",
        "spare": b"\0nothing\0",
        "x": b"",                                    # no word of 2+: on every boot
    })
    assert modset.needed("run=shell,pkg=fifo", progs) == {"shell", "echo", "cat", "x"}
    assert modset.needed("memcheck run=lone run=spare,2", progs) == {"lone", "hello", "spare", "x"}
    # a name in a program's arguments, as benchseq's +-joined ones
    assert modset.needed("run=benchseq,cat+-n+2", progs) == {"cat", "x"}
    assert modset.needed("run=nosuch", progs) == {"x"}


def test_a_changed_program_is_read_again(tmp_path):
    progs = fake_progs(tmp_path, {"aa": b"\0zz\0", "bb": b"", "cc": b""})
    assert modset.needed("run=aa", progs) == {"aa"}
    (tmp_path / "aa").write_bytes(b"\0exec cc now\0")
    assert modset.needed("run=aa", progs) == {"aa", "cc"}
    modset._WORDS.clear()                   # another process: the words kept on disk
    assert modset.needed("run=aa", progs) == {"aa", "cc"}


def test_a_disk_or_the_word_all_loads_every_program(built, monkeypatch):
    every = qemu.programs("run=hello", ["-drive", "file=x"])
    assert len(every) == len(iso.inputs()) - 2
    monkeypatch.setenv("ANIMA_MODULES", "all")
    assert qemu.programs("run=hello") == every
    monkeypatch.delenv("ANIMA_MODULES")
    few = qemu.programs("run=hello")
    assert "hello" in few and len(few) < len(every) // 10, few


def literal_names(prog, names):
    """Program names in the string literals of prog's own sources
    (progs/KIND/PROG.c or progs/KIND/PROG/*.c; not its #include lines)."""
    files = list(ROOT.glob(f"progs/*/{prog}.c")) + list(ROOT.glob(f"progs/*/{prog}/*.c"))
    found = set()
    for f in files:
        text = re.sub(r"/\*.*?\*/|//[^\n]*|^\s*#\s*include[^\n]*", "", f.read_text(errors="replace"),
                      flags=re.S | re.M)
        for lit in LITERAL.findall(text):
            found |= set(re.findall(r"[A-Za-z0-9_]+", lit)) & names
    return found


def test_every_program_a_source_names_is_found_in_its_file(built):
    """What the closure rests on: a program that names another in a
    string names it in its file's bytes too (a string the compiler built
    from immediates of its code, split, would not be; nor one made by
    printf: neither is in our sources)."""
    progs = {n: str(p) for n, p in qemu.programs("", ["-drive"]).items()}
    names = frozenset(progs)
    missed = {}
    for name, path in progs.items():
        lost = literal_names(name, names) - modset.names_in(path, names)
        if lost:
            missed[name] = sorted(lost)
    assert not missed, missed
