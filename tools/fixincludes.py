#!/usr/bin/env python3
"""Rewrite #include lines written for the old flat ulib (before the
layout of docs/architecture.md) to the prefixed names: <thread.h> ->
<animart/thread.h>, <result.h> -> <animalib/result.h>, <fmt.h> ->
<animacom/fmt.h>, ...; in ulib/libc/, "pwait.h"/"pt.h" ->
"../pthread/...". A program's own header of such a name (in the file's
folder or below it) is left alone. Idempotent.
usage: tools/fixincludes.py PATH...   (files or folders; .c .h .S)"""
import pathlib
import re
import sys

RT = "clock seg spin sync sys thread tls upcall vprt xsync xwait rtq pkg waitq".split()
LIBC = "result rng ulib".split()
COMMON = "fmt big".split()
NEW = {**{h: "animart/" + h for h in RT}, **{h: "animalib/" + h for h in LIBC},
       **{h: "animacom/" + h for h in COMMON}}
INCLUDE = re.compile(r'^(\s*#\s*include\s*)[<"]([a-z]+)\.h[>"]', re.M)


def fix(p):
    def rep(m):
        h = m.group(2)
        if h in NEW and not any(p.parent.rglob(f"{h}.h")):
            return f"{m.group(1)}<{NEW[h]}.h>"
        if h in ("pwait", "pt") and p.parent.name == "libc" and p.parent.parent.name == "ulib":
            return f'{m.group(1)}"../pthread/{h}.h"'
        return m.group(0)
    s = p.read_text(errors="surrogateescape")
    t = INCLUDE.sub(rep, s)
    if t != s:
        p.write_text(t, errors="surrogateescape")
        print(p)


for arg in sys.argv[1:]:
    a = pathlib.Path(arg)
    for p in [a] if a.is_file() else sorted(a.rglob("*")):
        if p.suffix in (".c", ".h", ".S") and p.is_file():
            fix(p)
