"""Anima test harness: builds boot ISOs (iso.py) and runs them in QEMU (qemu.py)."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("ANIMA_BUILD", ROOT / "build"))

# The order reports and tables list the thread packages in; a package
# not named here follows, by name.
PKG_ORDER = ("kthread", "fifo", "naive", "tutor", "prio")

# Packages with a narrower contract than the general-purpose ones, left
# out of packages() (so of every test and benchmark run on each package)
# and tested on their own: det (deterministic, one thread at a time, no
# parallelism nor time slices; a program that waits by spinning hangs;
# harness/tests/test_det.py runs what it does pass).
SPECIAL = ("det",)


def packages(special=False):
    """Every thread package of the tree: a folder threadpkgs/NAME/ with C
    sources, the Makefile's own rule (so its registry, build/gen/pkgs.c,
    lists the same), in PKG_ORDER; SPECIAL ones only if `special`."""
    have = {d.name for d in (ROOT / "threadpkgs").iterdir() if d.is_dir() and any(d.glob("*.c"))}
    if not special:
        have -= set(SPECIAL)
    return [p for p in PKG_ORDER if p in have] + sorted(have - set(PKG_ORDER))


def cmdline_of(words):
    """The kernel command line for `python3 -m harness run WORDS` (and
    `trace`): `run hello 3 x` means run=hello,3,x; a first word with '=',
    or any word starting run=, makes a raw cmdline (so a bare word such
    as `jitter` or `memcheck` may come first). A first word that is a
    path (/bin/prog) is a program file on the disk, run by pathrun."""
    if "=" in words[0] or any(w.startswith("run=") for w in words):
        return " ".join(words)
    if words[0].startswith("/"):
        words = ["pathrun"] + words     # a program file on the disk (progs/demos/pathrun.c)
    for w in words:
        if not w or " " in w or "," in w:
            raise ValueError(f"program argument {w!r}: empty, or has a space or comma")
    return "run=" + ",".join(words)
