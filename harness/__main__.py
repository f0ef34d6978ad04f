"""
python3 -m harness run PROGRAM [ARGS...] [--smp N] [--icount] [--timeout S] [--mem M]
python3 -m harness run [options] PROGRAM [ARGS...] -- [ARGS...]   (after --: all program
                                                  arguments, even ones starting with -)
python3 -m harness run KNOB=V... run=PROG,ARG... [options]   (a raw kernel command line)
python3 -m harness iso --out PATH --cmdline STR
python3 -m harness linux PROGRAM [ARGS...] [--smp N] [--icount]   (the same program
                                                  on Debian's Linux 6.1, glibc: harness/linux.py)
python3 -m harness trace PROGRAM [ARGS...] [--smp N] [--icount] [--out trace.json]

`run` boots the program, streams the console, and exits with the guest's
status; 124 on timeout, 125 on panic, 126 on reset, 127 on a QEMU error.
"""
import argparse
import sys

from . import iso, qemu

EXIT = {"timeout": 124, "panic": 125, "reset": 126, "qemu-error": 127}


def cmdline_of(words):
    # `run hello 3 x` means run=hello,3,x; a first word with '=', or any
    # word starting run=, makes a raw cmdline (so a bare word such as
    # `jitter` or `memcheck` may come first).
    if "=" in words[0] or any(w.startswith("run=") for w in words):
        return " ".join(words)
    for w in words:
        if not w or " " in w or "," in w:
            raise ValueError(f"program argument {w!r}: empty, or has a space or comma")
    return "run=" + ",".join(words)


def do_run(argv):
    ap = argparse.ArgumentParser(prog="python3 -m harness run")
    ap.add_argument("words", nargs="+", metavar="PROGRAM [ARGS...]")
    ap.add_argument("--smp", type=int, default=1)
    ap.add_argument("--icount", action="store_true")
    ap.add_argument("--timeout", type=float, default=60, help="seconds; 0 = no limit")
    ap.add_argument("--mem", default="512M")
    # Everything after the first `--` belongs to the program, so it can
    # take options of its own (-p 4, --verbose) that are not the harness's.
    rest = []
    if "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i + 1:]
    a = ap.parse_intermixed_args(argv)
    try:
        cmdline = cmdline_of(a.words + rest)
        r = qemu.run(cmdline, smp=a.smp, icount=a.icount, mem=a.mem,
                     timeout=a.timeout or None, on_line=lambda l: print(l, flush=True))
    except (ValueError, RuntimeError, FileNotFoundError) as e:
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
