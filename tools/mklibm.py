#!/usr/bin/env python3
"""Build build/libm.a from musl's math: the archive members of musl's
libc.a that define the wanted functions, and everything they need.

    tools/mklibm.py MUSL_LIBC_A OUT.a SYMBOL...

Why musl's objects and not our own: they are correct to the last bit and
well kept; we only pick members. What we change and check:
  - memcpy and __stack_chk_fail come from ulib, not musl (its memcpy.lo
    and __stack_chk_fail.lo are never taken).
  - Debian builds musl with -fstack-protector-strong, so a few members
    (sin, cos, tan, the pi/2 reductions) load the stack canary from
    %fs:0x28, the x86-64 TCB slot. Anima user code has no FS-based TCB
    (FS base is 0), so that load would fault. Each such load becomes
    `mov $0, %reg` and each check `sub %fs:0x28, %reg` becomes
    `sub $0, %reg`: the same code with a constant canary of 0 (still
    catching an overwrite of the slot with anything but zeros).
  - Every member must make no system call and need nothing outside the
    set but the two ulib symbols: checked here, the build fails otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

FROM_ULIB = {"memcpy", "__stack_chk_fail", "_GLOBAL_OFFSET_TABLE_"}


def run(*cmd, cwd=None):
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout


def definitions(lib):
    """symbol -> the member defining it (first one wins, as ld would)."""
    defs = {}
    member = None
    for line in run("nm", "--defined-only", lib).splitlines():
        if line.endswith(".lo:") or line.endswith(".o:"):
            member = line[:-1]
            continue
        f = line.split()
        if len(f) == 3 and f[1].isupper():   # a global definition
            defs.setdefault(f[2], member)
    return defs


def undefined(obj):
    return [l.split()[-1] for l in run("nm", "-u", obj).splitlines() if l.strip()]


# mov %fs:0x28,%r64  = 64 48 8b (00 rrr 100) 25 28 00 00 00
# sub %fs:0x28,%r64  = 64 48 2b (00 rrr 100) 25 28 00 00 00
CANARY = re.compile(rb"\x64\x48([\x8b\x2b])([\x04\x0c\x14\x1c\x2c\x34\x3c])\x25\x28\x00\x00\x00")


def patch(m):
    reg = (m.group(2)[0] >> 3) & 7
    if m.group(1) == b"\x8b":      # mov $0,%reg (7 bytes) + 2-byte nop
        return bytes([0x48, 0xC7, 0xC0 | reg, 0, 0, 0, 0, 0x66, 0x90])
    return bytes([0x48, 0x83, 0xE8 | reg, 0, 0x0F, 0x1F, 0x44, 0, 0])  # sub $0,%reg + nop5


def main(argv):
    lib, out, wanted = os.path.abspath(argv[0]), os.path.abspath(argv[1]), argv[2:]
    defs = definitions(lib)
    todo, members, seen = list(wanted), [], set()
    with tempfile.TemporaryDirectory() as tmp:
        while todo:
            s = todo.pop()
            if s in FROM_ULIB:
                continue
            m = defs.get(s)
            if m is None:
                sys.exit(f"mklibm: {s} is not in {lib}")
            if m in seen:
                continue
            seen.add(m)
            members.append(m)
            run("ar", "x", lib, m, cwd=tmp)
            todo += undefined(os.path.join(tmp, m))
        for m in members:
            p = os.path.join(tmp, m)
            data = open(p, "rb").read()
            new = CANARY.sub(patch, data)
            if new != data:
                open(p, "wb").write(new)
            dis = run("objdump", "-d", p)
            if "%fs:" in dis or re.search(r"\bsyscall\b|\bint\s+\$0x80", dis):
                sys.exit(f"mklibm: {m} still uses %fs or makes a system call")
        names = sorted(members)
        if os.path.exists(out):
            os.remove(out)
        run("ar", "rcs", out, *names, cwd=tmp)
    print(f"mklibm: {len(names)} members of {lib} -> {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
