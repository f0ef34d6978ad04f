"""
python3 -m harness run PROGRAM [ARGS...] [--smp N] [--icount] [--timeout S] [--mem M]
                                          [--disk IMAGE|DIR [--out OUTDIR]]
python3 -m harness run [options] PROGRAM [ARGS...] -- [ARGS...]   (after --: all program
                                                  arguments, even ones starting with -)
python3 -m harness run KNOB=V... run=PROG,ARG... [options]   (a raw kernel command line)
python3 -m harness run --disk DIR /bin/prog [ARGS...]   (a program file on the disk: DIR/bin/prog)
python3 -m harness iso --out PATH --cmdline STR
python3 -m harness linux PROGRAM [ARGS...] [--smp N] [--icount]   (the same program
                                                  on Debian's Linux 6.1, glibc: harness/linux.py)
python3 -m harness trace PROGRAM [ARGS...] [--smp N] [--icount] [--out trace.json]

`run` boots the program, streams the console, and exits with the guest's
status; 124 on timeout, 125 on panic, 126 on reset, 127 on a QEMU error.
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from . import cmdline_of, disk, iso, qemu

EXIT = {"timeout": 124, "panic": 125, "reset": 126, "qemu-error": 127}


def do_run(argv):
    ap = argparse.ArgumentParser(prog="python3 -m harness run")
    ap.add_argument("words", nargs="+", metavar="PROGRAM [ARGS...]")
    ap.add_argument("--smp", type=int, default=1)
    ap.add_argument("--icount", action="store_true")
    ap.add_argument("--timeout", type=float, default=60, help="seconds; 0 = no limit")
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--disk", metavar="IMAGE|DIR",
                    help="attach IMAGE (a raw file) as a virtio-blk disk, or an ext2 image made of DIR")
    ap.add_argument("--out", metavar="OUTDIR", help="after the run, copy the disk's tree to OUTDIR")
    # Everything after the first `--` belongs to the program, so it can
    # take options of its own (-p 4, --verbose) that are not the harness's.
    rest = []
    if "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i + 1:]
    a = ap.parse_intermixed_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            cmdline = cmdline_of(a.words + rest)
            image = a.disk
            if image and Path(image).is_dir():
                image = disk.make_image(image, Path(tmp) / "disk.img")
            if a.out and not image:
                raise ValueError("--out needs --disk")
            r = qemu.run(cmdline, smp=a.smp, icount=a.icount, mem=a.mem,
                         timeout=a.timeout or None, on_line=lambda l: print(l, flush=True),
                         disk=image)
            if a.out:
                disk.copy_back(image, a.out)
        except (ValueError, RuntimeError, FileNotFoundError, subprocess.CalledProcessError) as e:
            print(f"harness: {e}", file=sys.stderr)
            return 2
    if r.kind == "done":
        return r.status
    why = {"timeout": f"timed out after {a.timeout:g} s",
           "panic": "guest panicked",
           "reset": "guest reset (triple fault?)",
           "qemu-error": f"qemu failed (exit {r.exit_code})"}[r.kind]
    print(f"harness: {why}\n--- last 40 lines ---\n{r.tail(40)}", file=sys.stderr)
    return EXIT[r.kind]


def main(argv):
    if argv[:1] == ["run"]:
        return do_run(argv[1:])
    if argv[:1] == ["iso"]:
        return iso.main(argv[1:])
    if argv[:1] == ["linux"]:
        from . import linux
        return linux.main(argv[1:])
    if argv[:1] == ["trace"]:
        from . import trace          # imports this module: load it late
        return trace.main(argv[1:])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
