#!/usr/bin/env python3
"""Print compile_commands.json (for clangd) from the Makefile's flags.
usage: compdb.py CC KERNEL_CFLAGS USER_CFLAGS"""
import json
import shlex
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
cc, kflags, uflags = sys.argv[1], shlex.split(sys.argv[2]), shlex.split(sys.argv[3])
groups = [(kflags, ["boot/*.S", "kernel/*.c", "kernel/*.S", "common/*.c"]),
          (uflags, ["ulib/*/*.c", "ulib/*/*.S", "common/*.c", "threadpkgs/**/*.c", "progs/*/*.c",
                   "progs/posix/*/*.c", "progs/ported/*/*.c"])]
# Dependency-file flags mean nothing to clangd.
drop = {"-MMD", "-MP"}
out = []
for flags, globs in groups:
    for g in globs:
        for f in sorted(root.glob(g)):
            rel = str(f.relative_to(root))
            args = [cc] + [a for a in flags if a not in drop] + ["-c", rel]
            out.append({"directory": str(root), "file": rel, "arguments": args})
print(json.dumps(out, indent=1))
