"""
Build a GRUB (BIOS, i386-pc) rescue ISO holding the kernel, its symbol
table and every guest program, with a given kernel command line.

ISOs are cached by content in build/iso/<sha256>.iso, so running the same
command line against the same binaries costs nothing, and a rebuilt
kernel or program gets a fresh ISO automatically.
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from . import BUILD, ROOT

# GRUB's config language would interpret ; $ quotes braces etc., so the
# command line is restricted to characters that mean nothing to it.
CMDLINE_OK = re.compile(r"[A-Za-z0-9=,._:/+ -]*")
NAME_OK = re.compile(r"[A-Za-z0-9_.+-]+")
# Bump when the ISO layout or grub-mkrescue options change: part of the key.
FORMAT = "anima-iso-2"    # 2: programs without their debugging sections
MKRESCUE = ["grub-mkrescue", "--locales=", "--fonts=", "--themes="]
KEEP = 100  # cached ISOs kept (about 2.7 MB each)


# The words ulib/pthread/pstart.c takes off a POSIX program's argv, and
# only while they lead it: a later one is an argument like any other.
START_WORD = re.compile(r"(pkg|vps|det|detspin)=.*")
POSIX_KINDS = ("posix", "ported", "workloads", "bin")   # linked with pstart.c (Makefile)


def check_cmdline(cmdline):
    if not CMDLINE_OK.fullmatch(cmdline):
        raise ValueError(f"bad kernel command line {cmdline!r}: "
                         "only [A-Za-z0-9=,._:/+-] and spaces are allowed")
    for w in cmdline.split():
        if w.startswith("run="):
            check_start_words(w)


def check_start_words(run):
    """Refuse `run=PROG,...,pkg=X` where PROG is a POSIX program and a
    pkg=/vps=/det=/detspin= word comes after one of its own arguments:
    pstart.c would leave it in argv and run the default package (fifo), so
    a test meant for X would silently test fifo. (The guest cannot refuse
    it: /bin/echo pkg=x must print it. A native program, e.g. exectest,
    may pass such words on to a program it execs.)"""
    prog, *args = run[4:].split(",")
    prog = prog.split(":")[0]
    if not any((ROOT / "progs" / k / n).exists() for k in POSIX_KINDS
               for n in (prog, prog + ".c")):
        return
    lead = 0
    while lead < len(args) and START_WORD.fullmatch(args[lead]):
        lead += 1
    late = [a for a in args[lead:] if START_WORD.fullmatch(a)]
    if late:
        raise ValueError(f"{run!r}: {late[0]!r} after the program's own arguments would be "
                         f"one of them, not a package choice: put it first "
                         f"(run={prog},{late[0]},...; docs/posix.md)")


def inputs():
    """The files that go into every ISO: (path in ISO, path on disk)."""
    files = [("boot/kernel.elf", BUILD / "kernel.elf"),
             ("boot/kernel.sym", BUILD / "kernel.sym")]
    progs = BUILD / "progs"
    for p in sorted(progs.iterdir()) if progs.is_dir() else []:
        if not p.is_file():
            continue
        if not NAME_OK.fullmatch(p.name):
            raise ValueError(f"program file name {p.name!r} cannot be a GRUB module string")
        files.append((f"boot/progs/{p.name}", p))
    for _, p in files[:2]:
        if not p.is_file():
            raise FileNotFoundError(f"{p} missing: run `make` first")
    if len(files) - 1 > max_modules():      # ksyms and the programs
        raise ValueError(f"{len(files) - 2} programs and ksyms are {len(files) - 1} boot modules; "
                         f"the kernel takes {max_modules()} (MAXMODULES, kernel/kernel.h)")
    return files


def max_modules():
    """The kernel's MAXMODULES: past it a module is ignored, and a program
    there would be "no such program" at run time."""
    m = re.search(r"^#define MAXMODULES (\d+)", (ROOT / "kernel/kernel.h").read_text(), re.M)
    return int(m[1])


def grub_cfg(cmdline, files):
    mods = "".join(f"  module2 /{iso} {Path(iso).name}\n"
                   for iso, _ in files if iso.startswith("boot/progs/"))
    # GRUB's own messages go to COM1 too, so an error such as a bad
    # multiboot header shows in the test log instead of on a screen.
    return ("serial --unit=0 --speed=115200\n"
            "terminal_output serial\n"
            "set timeout=0\n"
            "set default=0\n"
            'menuentry "anima" {\n'
            f"  multiboot2 /boot/kernel.elf {cmdline}\n"
            "  module2 /boot/kernel.sym ksyms\n"
            f"{mods}"
            "  boot\n"
            "}\n")


def build_iso(cmdline, out=None):
    """Return the path of an ISO booting `cmdline`; copy it to `out` if given."""
    check_cmdline(cmdline)
    files = inputs()
    cfg = grub_cfg(cmdline, files)
    h = hashlib.sha256(FORMAT.encode() + b"\0" + cfg.encode() + b"\0")
    for iso, disk in files:
        data = disk.read_bytes()
        h.update(f"{iso}\0{len(data)}\0".encode())
        h.update(data)
    cache = BUILD / "iso"
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"{h.hexdigest()}.iso"
    if path.exists():
        os.utime(path)  # mark as recently used, for prune()
    else:
        make(path, cfg, files)
        prune(cache)
    if out is None:
        return str(path)
    # Copy (not link) so `out` gets a fresh mtime for make.
    tmp = f"{out}.{os.getpid()}.tmp"
    shutil.copyfile(path, tmp)
    os.replace(tmp, out)
    return str(out)


def stripped(prog):
    """The program file a boot loads: a copy without its debugging
    sections and symbol table, build/mods/NAME, made again when the
    program is newer (strip --strip-all changes no address, and nothing
    in a run reads a program's symbols: backtrace_symbols gives
    addresses; build/progs keeps the full file for debuggers and
    traces). GRUB reads every module through the BIOS, one emulated
    instruction at a time under icount: the programs were 21 MB with
    their DWARF, 4.4 MB without. Every boot copies them all into the
    guest: 47 MB with their symbol tables, 40 MB without, 0.26 -> 0.22 s
    of QEMU CPU time for a boot of hello. The program itself if strip
    fails or is missing."""
    out = BUILD / "mods" / prog.name
    try:
        if out.stat().st_mtime >= prog.stat().st_mtime:
            return out
    except FileNotFoundError:
        pass
    out.parent.mkdir(parents=True, exist_ok=True)
    # xdist workers race, and so do experiments.py's threads in one process
    tmp = out.with_name(f".{prog.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        p = subprocess.run(["strip", "--strip-all", "-o", str(tmp), str(prog)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except OSError:
        return prog
    if p.returncode != 0:
        tmp.unlink(missing_ok=True)
        return prog
    os.replace(tmp, out)
    return out


def put(disk, dest, program):
    """Copy a file into the ISO's tree (a program stripped); a test's
    ISO may put modules in folders of their own."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(stripped(disk) if program else disk, dest)


def make(path, cfg, files):
    # Stage and write under unique names, then rename: two pytest-xdist
    # workers may build the same key at once, and rename is atomic.
    with tempfile.TemporaryDirectory(dir=path.parent, prefix="stage-") as d:
        root, tmp = Path(d) / "root", Path(d) / "out.iso"
        (root / "boot/grub").mkdir(parents=True)
        (root / "boot/progs").mkdir()
        (root / "boot/grub/grub.cfg").write_text(cfg)
        for iso, disk in files:
            put(disk, root / iso, iso.startswith("boot/progs/"))
        p = subprocess.run(MKRESCUE + ["-o", str(tmp), str(root)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0 or not tmp.is_file():
            raise RuntimeError(f"grub-mkrescue failed (exit {p.returncode}):\n{p.stdout}")
        os.replace(tmp, path)


def prune(cache):
    # Another worker may prune (delete) an ISO between the listing and
    # its stat: it is gone, so it sorts as oldest and its unlink is a no-op.
    def mtime(p):
        try:
            return p.stat().st_mtime
        except FileNotFoundError:
            return 0
    isos = sorted(cache.glob("*.iso"), key=mtime, reverse=True)
    for p in isos[KEEP:]:
        try:
            p.unlink()
        except FileNotFoundError:
            pass  # another worker pruned it first


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m harness.iso", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="where to put the ISO")
    ap.add_argument("--cmdline", default="run=demo", help="kernel command line")
    a = ap.parse_args(argv)
    try:
        build_iso(a.cmdline, a.out)
    except (ValueError, RuntimeError, FileNotFoundError) as e:
        print(f"harness.iso: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
