"""
The boot modules a direct boot of a command line loads: the programs it
can run, not every program of the build.

QEMU copies every -initrd file into the guest before the kernel starts,
and its CPU time grows with their bytes (the Makefile's --gc-sections
note: 0.18 -> 0.135 s a boot of hello for 47 -> 29.5 MB). Most boots run
one program that runs no other, yet loaded all ~240 (32 MB).

A guest finds a program only by its name (kernel/exec.c, space.c,
binpath.c: module_find; nothing lists the modules), and a name comes
from the command line or from a program's own bytes: a string such as
"/bin/sh", "exectest" or "sh -c 'echo x | cat'". So a boot gets the
programs whose names are words of its command line, and then, again
and again, those named in the bytes of the programs it has: the
closure. A word is a run of [A-Za-z0-9_]; a program is named in a file
by a word or a word's end (the linker keeps one copy of a string that
ends another: "cat" may be the tail of "concat"). A program whose name
is no such word goes on every boot. Over-counting (a string "true" that
names no program run) only loads a module more. test_modset.py checks
that every program named in a string of a program's source is found in
its file.

What the closure cannot see makes a boot take them all: a disk (its
files may be scripts or programs that name modules), and
ANIMA_MODULES=all (to compare, or debug).
"""
import os
import re

WORD = re.compile(rb"[A-Za-z0-9_]{2,}")
PLAIN = re.compile(r"[A-Za-z0-9_]{2,}")

_WORDS = {}     # path -> ((mtime_ns, size), frozenset of its words)


def words(path):
    """The words of a file's bytes, read once per version of it (its
    mtime and size): kept beside it (DIR/.words/NAME, that version on
    its first line) for the next process, as every xdist worker and
    `harness run` would scan the same programs."""
    st = os.stat(path)
    stamp = (st.st_mtime_ns, st.st_size)
    hit = _WORDS.get(path)
    if hit and hit[0] == stamp:
        return hit[1]
    folder, name = os.path.split(path)
    cache = os.path.join(folder, ".words", name)
    tag = f"{stamp[0]} {stamp[1]}"
    try:
        with open(cache) as f:
            first, *rest = f.read().split("\n")
        if first == tag:
            _WORDS[path] = (stamp, frozenset(rest))
            return _WORDS[path][1]
    except (FileNotFoundError, ValueError):
        pass
    with open(path, "rb") as f:
        w = frozenset(m.decode() for m in WORD.findall(f.read()))
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    tmp = f"{cache}.{os.getpid()}.tmp"      # xdist workers race
    with open(tmp, "w") as f:
        f.write("\n".join([tag] + sorted(w)))
    os.replace(tmp, cache)
    _WORDS[path] = (stamp, w)
    return w


def named(ws, names):
    """The names (a set) that are words of `ws` or end one."""
    return {w[i:] for w in ws for i in range(len(w) - 1) if w[i:] in names}


_NAMED = {}     # (path, names) -> (its words, the names it has)


def names_in(path, names):
    """named(words(path), names), worked out once per version of it."""
    ws = words(path)
    hit = _NAMED.get((path, names))
    if hit is None or hit[0] is not ws:
        hit = _NAMED[(path, names)] = (ws, named(ws, names))
    return hit[1]


def needed(cmdline, progs):
    """The names of `progs` ({name: file a boot loads}) that a boot of
    `cmdline` can reach: named by the command line, or by a program
    reached."""
    names = frozenset(progs)
    todo = named(PLAIN.findall(cmdline), names) | {n for n in names if not PLAIN.fullmatch(n)}
    keep = set()
    while todo:
        name = todo.pop()
        keep.add(name)
        todo |= names_in(str(progs[name]), names) - keep
    return keep


def all_modules(extra):
    """Does this boot need every program whatever its command line?"""
    return os.environ.get("ANIMA_MODULES") == "all" or "-drive" in [str(e) for e in extra]
