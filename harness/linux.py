"""
Linux beside Anima: boot Debian's linux-image-6.1 in the same QEMU, with
the same flags (harness/qemu.py's base(): -cpu max, memory, -smp, and
-icount shift=0 or multi-threaded TCG), on an initramfs built here.

    python3 -m harness linux PROG [ARGS...] [--smp N] [--icount] [--timeout S]
    python3 -m harness linux PROG --smp 2 -- -t 4      (after --: the program's)
    python3 -m harness linux PROG ARGS --smp 2 --irqs  (and each command's TLB
                                                        shootdowns and IPIs)
    python3 -m harness linux histogram --file H.bmp -- -i /H.bmp 2
                                                       (a host file at /H.bmp)
    python3 -m harness linux PROG ARGS --disk DIR      (an ext2 image of DIR as
                                                        virtio-blk, at /mnt)

The initramfs (a gzip'd newc cpio written by this module) holds /init
(tools/linux/init.c), /cmds (the commands, one a line) and each program
under /bin, all compiled statically against glibc by the host's gcc
(`gcc -O2 -static -pthread`). A program is a guest program's source:
progs/KIND/NAME.c, the same file Anima builds with its own libc. init
runs the commands in turn, then ends QEMU through isa-debug-exit with
the first non-zero status (or powers off), so a Result reads as an
Anima run's: kind "done", status, the `@result` lines, each tagged here
with "system": "linux".

The kernel: the package linux-image-amd64 depends on (apt-get download,
as root; no other network), its /boot unpacked into CACHE
(ANIMA_LINUX_CACHE, default ~/.cache/anima-linux). Console: ttyS0.
"""
import argparse
import gzip
import hashlib
import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from . import BUILD, ROOT, qemu

CACHE = Path(os.environ.get("ANIMA_LINUX_CACHE", Path.home() / ".cache" / "anima-linux"))
OUT = BUILD / "linux"
INIT_SRC = ROOT / "tools" / "linux" / "init.c"
# `quiet`: only warnings; panic=-1 reboots at once on a panic, which
# -no-reboot turns into QEMU's exit (read as "reset", not a hang).
# no_timer_check: Linux's boot-time test that the IO-APIC timer ticks
# counts ticks in a fixed window; a host stall of the vCPU there panics
# it ("IO-APIC + timer doesn't work!", a full test run at load 16).
APPEND = "console=ttyS0 quiet panic=-1 no_timer_check"
CFLAGS = ("-O2", "-static", "-pthread", "-Wall", "-Wextra", "-Werror")


class LinuxUnavailable(RuntimeError):
    """The kernel package cannot be had (no apt, no mirror)."""


def _sh(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def kernel():
    """The vmlinuz of linux-image-amd64's kernel, fetched once into CACHE."""
    have = sorted(CACHE.glob("boot/vmlinuz-6.1.*-amd64"))
    if have:
        return have[-1]
    dep = _sh(["apt-cache", "depends", "linux-image-amd64"]).stdout
    m = re.search(r"Depends:\s*(linux-image-6\.1\.\S+-amd64)", dep)
    if not m:
        raise LinuxUnavailable(f"apt-cache names no linux-image-6.1 kernel:\n{dep}")
    CACHE.mkdir(parents=True, exist_ok=True)
    got = _sh(["apt-get", "download", m.group(1)], cwd=CACHE)
    debs = sorted(CACHE.glob(f"{m.group(1)}_*.deb"))
    if not debs:
        raise LinuxUnavailable(f"apt-get download {m.group(1)} failed:\n{got.stderr}")
    # Only /boot: the modules (hundreds of MB) are not needed, the
    # kernel has the serial console and gzip'd initramfs built in.
    tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(debs[-1])], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(CACHE), "./boot/"], stdin=tar.stdout, check=True)
    tar.wait()
    have = sorted(CACHE.glob("boot/vmlinuz-6.1.*-amd64"))
    if not have:
        raise LinuxUnavailable(f"{debs[-1]} holds no /boot/vmlinuz")
    return have[-1]


def source(prog):
    """progs/KIND/NAME.c for the program NAME."""
    found = sorted(ROOT.glob(f"progs/*/{prog}.c"))
    if len(found) != 1:
        raise FileNotFoundError(f"no single progs/*/{prog}.c (found {found})")
    return found[0]


def compile_static(src, out):
    """`gcc -O2 -static -pthread` src -> out, again only when src, a header
    beside it or the flags changed."""
    deps = sorted(src.parent.glob("*.h")) + [src]
    key = hashlib.sha256(repr(CFLAGS).encode() + b"".join(p.read_bytes() for p in deps))
    stamp = out.with_suffix(".sha")
    if out.is_file() and stamp.is_file() and stamp.read_text() == key.hexdigest():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    cc = os.environ.get("CC", "gcc")
    r = _sh([cc, *CFLAGS, "-o", str(out), str(src), "-lm"])
    if r.returncode:
        raise RuntimeError(f"{cc} {src.relative_to(ROOT)} failed:\n{r.stderr}")
    stamp.write_text(key.hexdigest())
    return out


def _cpio_entry(name, mode, data=b"", rdev=(0, 0)):
    """One newc record: a 110-byte ASCII header, the name, the data, each
    padded to 4 bytes."""
    fields = [0, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name) + 1, 0]
    head = b"070701" + b"".join(b"%08X" % f for f in fields)
    pad = lambda n: b"\0" * (-n % 4)
    nm = name.encode() + b"\0"
    return head + nm + pad(len(head) + len(nm)) + data + pad(len(data))


def initramfs(progs, commands, files=None, more=()):
    """The gzip'd cpio with /init, /dev/console, /cmds and /bin/PROG for
    each of `progs` (name -> binary path), /NAME for each of `files`
    (name -> host path: a workload's -i input), and the records `more`."""
    out = io.BytesIO()
    out.write(_cpio_entry("dev", 0o040755))
    out.write(_cpio_entry("dev/console", 0o020600, rdev=(5, 1)))
    out.write(_cpio_entry("bin", 0o040755))
    init = compile_static(INIT_SRC, OUT / "init")
    out.write(_cpio_entry("init", 0o100755, init.read_bytes()))
    out.write(_cpio_entry("cmds", 0o100644, "".join(c + "\n" for c in commands).encode()))
    for name, path in sorted(progs.items()):
        out.write(_cpio_entry(f"bin/{name}", 0o100755, Path(path).read_bytes()))
    for name, path in sorted((files or {}).items()):
        out.write(_cpio_entry(name, 0o100644, Path(path).read_bytes()))
    for rec in more:
        out.write(rec)
    out.write(_cpio_entry("TRAILER!!!", 0))
    return gzip.compress(out.getvalue(), compresslevel=1)


def command(initrd, smp=1, icount=False, mem="512M", extra=(), irqs=False):
    """Anima's machine (qemu.base) booting Linux instead. irqs: init
    reports each command's interrupts (@irqs lines: TLB shootdowns, IPIs)."""
    append = APPEND + (" irqs=1" if irqs else "")
    media = ["-kernel", str(kernel()), "-initrd", str(initrd), "-append", append]
    return qemu.base(smp, icount, mem, media) + list(extra)


def run(commands, smp=1, icount=False, timeout=120, mem="512M", extra=(), on_line=None,
        irqs=False, files=None, disk=None):
    """Boot Linux, run `commands` ("PROG ARG ...", one after another) and
    return the qemu.Result; every @result is tagged "system": "linux".
    `files` (guest name -> host path) go in the initramfs's root. disk: a
    raw ext2 image attached as Anima's is, mounted read-only at /mnt
    before the commands run (harness/linuxdisk.py)."""
    progs = {c.split()[0]: compile_static(source(c.split()[0]), OUT / "bin" / c.split()[0])
             for c in commands}
    OUT.mkdir(parents=True, exist_ok=True)
    more = ()
    if disk:
        from . import linuxdisk
        more, extra = linuxdisk.cpio_entries(), list(extra) + qemu.disk_args(disk)
    with tempfile.NamedTemporaryFile(dir=OUT, suffix=".cpio.gz") as f:
        f.write(initramfs(progs, commands, files, more))
        f.flush()
        cmd = command(f.name, smp, icount, mem, extra, irqs)
        r = qemu.run(" ; ".join(commands), timeout=timeout, on_line=on_line, cmd=cmd)
    for tag, d in r._events:
        if tag == "result":
            d.setdefault("system", "linux")
    return r


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m harness linux")
    ap.add_argument("words", nargs="+", metavar="PROGRAM [ARGS...]")
    ap.add_argument("--smp", type=int, default=1)
    ap.add_argument("--icount", action="store_true")
    ap.add_argument("--timeout", type=float, default=120, help="seconds; 0 = no limit")
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--file", action="append", default=[], metavar="PATH",
                    help="put the host file PATH at /NAME (its name) in the guest")
    ap.add_argument("--irqs", action="store_true",
                    help="report the interrupts each command caused (@irqs lines)")
    ap.add_argument("--disk", metavar="IMAGE|DIR",
                    help="attach IMAGE (or an ext2 image of DIR) as virtio-blk, mounted at /mnt")
    rest = []
    if "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i + 1:]
    a = ap.parse_intermixed_args(argv)
    extra = qemu_wall_flags(a.smp, a.icount)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            image = a.disk
            if image and Path(image).is_dir():
                from . import disk
                image = disk.make_image(image, Path(tmp) / "disk.img")
            r = run([" ".join(a.words + rest)], a.smp, a.icount, a.timeout or None, a.mem, extra,
                    on_line=lambda l: print(l, flush=True), irqs=a.irqs, disk=image,
                    files={Path(f).name: f for f in a.file})
    except (LinuxUnavailable, RuntimeError, FileNotFoundError, subprocess.CalledProcessError) as e:
        print(f"harness: {e}", file=sys.stderr)
        return 2
    if r.kind == "done":
        return r.status
    print(f"harness: Linux run ended as {r.kind}\n{r.tail(40)}", file=sys.stderr)
    return {"timeout": 124, "panic": 125, "reset": 126}.get(r.kind, 127)


def qemu_wall_flags(smp, icount):
    """multi-threaded TCG said outright at -smp 1 too, as make bench does."""
    return ("-accel", "tcg,thread=multi") if not icount and smp == 1 else ()
