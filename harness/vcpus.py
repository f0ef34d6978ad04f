"""
Where each vCPU is when a run times out: asked of QEMU's monitor before
the harness kills it. The kernel's own watchdog (`watchdog=S`, debug.c)
dumps its state from a timer interrupt, so it says nothing when every
CPU spins with interrupts off (a lock-order deadlock in the kernel: the
stop/SIGCHLD hang of 59ea0b0 was found only with a gdb stub). The
monitor still answers then: each vCPU's rip, whether it is halted, its
privilege level and, in the kernel, the return addresses up its frame
pointers, named from build/kernel.sym.

qemu.run gives every QEMU it builds a monitor socket (`-monitor
unix:...`) and, on a timeout, appends these lines to the run's console
lines, each starting "harness: vcpu".
"""
import re
import socket
import time

from . import BUILD

KERNBASE = 0xffffffff80000000
HIGH = 0xffff800000000000       # kernel frames: the image or the direct map
PROMPT = b"(qemu) "
DEPTH = 16                       # frames walked per vCPU


def _symbols():
    """[(address, name)] sorted, from build/kernel.sym (nm's format)."""
    syms = []
    try:
        with open(BUILD / "kernel.sym") as f:
            for line in f:
                p = line.split()
                if len(p) == 3:
                    syms.append((int(p[0], 16), p[2]))
    except (OSError, ValueError):
        return []
    return sorted(syms)


def _name(syms, a):
    lo, hi, best = 0, len(syms) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        if syms[mid][0] <= a:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return f"{syms[best][1]}+{a - syms[best][0]:#x}" if best is not None else "?"


class _Monitor:
    """QEMU's human monitor on a unix socket: one command, its answer."""

    def __init__(self, path, timeout):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.buf = b""
        self._until_prompt()            # the banner

    def _until_prompt(self):
        while PROMPT not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise OSError("monitor closed")
            self.buf += chunk
        out, self.buf = self.buf.split(PROMPT, 1)
        return out.decode(errors="replace").replace("\r", "")

    def ask(self, cmd):
        self.s.sendall(cmd.encode() + b"\n")
        # The monitor echoes the line with terminal escapes; the answer
        # is what follows the echo's last line break.
        return self._until_prompt().split("\n", 1)[-1]

    def close(self):
        self.s.close()


def state(path, timeout=5.0):
    """Lines saying where each vCPU is; [] if the monitor cannot be asked."""
    syms = _symbols()
    lines = []
    t0 = time.monotonic()
    try:
        m = _Monitor(path, timeout)
        m.ask("stop")                   # one moment's state (it is killed next)
        regs = m.ask("info registers -a")
        for cpu, text in re.findall(r"CPU#(\d+)\n(.*?)(?=CPU#\d+\n|\Z)", regs, re.S):
            rip = re.search(r"RIP=([0-9a-f]+)", text)
            rbp = re.search(r"RBP=([0-9a-f]+)", text)
            hlt = re.search(r"HLT=(\d)", text)
            cpl = re.search(r"CPL=(\d)", text)
            if not rip:
                lines.append(f"harness: vcpu {cpu}: not in long mode")
                continue
            a = int(rip.group(1), 16)
            where = _name(syms, a) if a >= KERNBASE else "user"
            lines.append(f"harness: vcpu {cpu}: rip {a:#x} {where} cpl {cpl and cpl.group(1)}"
                         f" halted {hlt and hlt.group(1)}")
            if a < KERNBASE or not rbp:
                continue
            m.ask(f"cpu {cpu}")         # x reads through this vCPU's page tables
            fp = int(rbp.group(1), 16)
            for _ in range(DEPTH):
                if fp < HIGH or fp % 8 or time.monotonic() - t0 > timeout:
                    break
                words = re.findall(r"0x([0-9a-f]{16})", m.ask(f"x/2gx {fp:#x}").split(":", 1)[-1])
                if len(words) < 2 or not int(words[1], 16):
                    break
                ret = int(words[1], 16)
                lines.append(f"harness: vcpu {cpu}:   {ret:#x} {_name(syms, ret)}")
                fp = int(words[0], 16)
        m.close()
    except (OSError, ValueError) as e:
        lines.append(f"harness: vcpu state not read: {e}")
    return lines
