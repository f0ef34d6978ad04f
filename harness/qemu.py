"""
Boot Anima in QEMU and collect what the guest says on COM1.

Two ways in, the same kernel, command line and programs:
  - direct (the default): QEMU's own multiboot1 loader, `-kernel
    build/kernel.bin -append CMDLINE -initrd "ksyms,PROG NAME,..."`. No
    GRUB and no BIOS disk reads: under -icount those were 3-5 s of every
    boot (each emulated instruction by instruction), against 1.3 s in all.
  - iso: the GRUB ISO users boot (`make run`), built per command line and
    cached (harness/iso.py). ANIMA_BOOT=iso makes every run take it; tests
    of the ISO itself pass `iso=`.

How a run ended is read from QEMU's exit code (see <anima/exit.h>): the
guest writes v to the isa-debug-exit port and QEMU exits (v << 1) | 1.
  v = 0x20      -> "panic"  (exit 65)
  v = 0x40 | s  -> "done" with aggregate status s (exit 129 + 2s)
  exit 0        -> "reset"  (triple fault, or reboot under -no-reboot)
  anything else -> "qemu-error" (QEMU itself failed, e.g. exit 1)
and a guest that does not finish in time is killed and reads "timeout".

Machine-readable console lines look like `@TAG {json}`; they are parsed
into events (r.events("exit"), r.results, ...).
"""
import json
import os
import re
import selectors
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from . import iso as isomod
from . import vcpus
from .iso import build_iso, check_cmdline, inputs, stripped

DEBUG_EXIT_PANIC = 0x20
DEBUG_EXIT_DONE = 0x40
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")    # GRUB's screen control codes
EVENT = re.compile(r"@([A-Za-z_][A-Za-z0-9_-]*)(?:\s+(.*))?")


@dataclass
class Result:
    kind: str                   # done, panic, timeout, reset, qemu-error
    status: int | None          # guest aggregate status when kind == "done"
    exit_code: int | None       # QEMU's (None if we killed it)
    lines: list                 # console lines, \r and terminal codes stripped
    elapsed: float = 0.0
    stderr: str = ""            # QEMU's own messages
    cmd: list = field(default_factory=list)
    cmdline: str = ""
    bad_lines: list = field(default_factory=list)   # @ lines whose JSON did not parse
    _events: list = field(default_factory=list)     # (tag, dict) in console order
    cpu: float | None = None    # QEMU's CPU seconds (reap), None if unknown

    @property
    def log(self):
        return "\n".join(self.lines)

    def events(self, tag):
        return [d for t, d in self._events if t == tag]

    @property
    def tags(self):
        return [t for t, _ in self._events]

    @property
    def results(self):
        return self.events("result")

    def tail(self, n=40):
        head = f"[{self.kind} status={self.status} qemu-exit={self.exit_code} " \
               f"after {self.elapsed:.1f}s; cmdline {self.cmdline!r}]"
        err = f"\n[qemu stderr]\n{self.stderr.rstrip()}" if self.stderr.strip() else ""
        return "\n".join([head] + self.lines[-n:]) + err

    def __str__(self):
        return self.tail()


def parse_events(lines):
    """Return ([(tag, dict)], bad_lines) for the `@TAG {json}` lines."""
    events, bad = [], []
    for line in lines:
        m = EVENT.fullmatch(line.strip())
        if not m:
            continue
        try:
            d = json.loads(m.group(2) or "")
            if not isinstance(d, dict):
                raise ValueError("not an object")
        except ValueError:
            bad.append(line)
            continue
        events.append((m.group(1), d))
    return events, bad


def decode(exit_code, lines, timed_out=False):
    """Return (kind, status) for how a run ended."""
    # A panic message wins: a kernel that panicked and then hung or exited
    # oddly is best reported as the panic.
    if any(l.startswith("PANIC") for l in lines):
        return "panic", None
    if timed_out:
        return "timeout", None
    if exit_code == (DEBUG_EXIT_PANIC << 1) | 1:
        return "panic", None
    if exit_code is not None and exit_code & 1 and ((exit_code >> 1) & ~0x3f) == DEBUG_EXIT_DONE:
        return "done", (exit_code >> 1) & 0x3f
    if exit_code == 0:
        return "reset", None
    return "qemu-error", None


_URING = {}


def io_uring_ok(qemu):
    """Can this QEMU, on this host, read a drive with aio=io_uring? (Asked
    once per process, of a scratch file: a QEMU built without it, or a
    container whose seccomp forbids io_uring, says no and we keep the
    default.)"""
    if qemu not in _URING:
        try:
            with tempfile.NamedTemporaryFile(suffix=".iso") as f:
                f.write(bytes(4096))
                f.flush()
                p = subprocess.run([qemu, "-machine", "none", "-nodefaults", "-display", "none",
                                    "-monitor", "stdio", "-drive",
                                    f"if=none,id=d,file={f.name},media=cdrom,readonly=on,"
                                    "aio=io_uring"],
                                   input=b"quit\n", capture_output=True, timeout=20)
            _URING[qemu] = p.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _URING[qemu] = False
    return _URING[qemu]


def command(iso, smp=1, icount=False, mem="512M", extra=()):
    qemu = os.environ.get("ANIMA_QEMU", "qemu-system-x86_64")
    # The CD: GRUB reads the kernel and every program (about 20 MB) through
    # the BIOS before the kernel prints a line. With QEMU's default aio
    # each read hops to a worker thread and back through the main loop;
    # on a busy host every hop waits for a CPU, and the BIOS stage of an
    # icount boot beside another QEMU and two CPU hogs took 31 s (2 s
    # quiet): the issue-16 timeouts "before the kernel's first line".
    # io_uring completes the reads without the worker hop: 4 s there.
    if io_uring_ok(qemu):
        cd = ["-drive", f"file={iso},media=cdrom,if=ide,readonly=on,aio=io_uring"]
    else:
        cd = ["-cdrom", str(iso)]
    return base(smp, icount, mem, cd) + list(extra)


def base(smp, icount, mem, media):
    """The machine, the same for both ways in, with `media` (what to boot)."""
    qemu = os.environ.get("ANIMA_QEMU", "qemu-system-x86_64")
    # -nodefaults: no VGA, NIC or floppy for the BIOS to set up; it halves
    # the boot under icount (about 7 s -> 2.5 s here), when every BIOS
    # instruction is emulated one by one.
    cmd = [qemu, "-nodefaults", "-cpu", "max", "-smp", str(smp), "-m", str(mem),
           "-display", "none", "-no-reboot", "-monitor", "none", "-serial", "stdio",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x01"] + media
    if icount:
        # deterministic instruction-counted time; "warp": an idle guest's
        # clock jumps to its next timer (sleep=off) instead of waiting for
        # it in host time, for programs that only wait on their own timers
        # (no disk: an I/O in flight would see its time-out come at once).
        cmd += ["-icount", "shift=0,sleep=off" if icount == "warp" else "shift=0"]
    elif smp > 1:
        cmd += ["-accel", "tcg,thread=multi"]  # one host thread per vCPU
    return cmd


def direct_command(cmdline, smp=1, icount=False, mem="512M", extra=()):
    """The direct boot of `cmdline` (the module docstring), or None where
    it cannot name the files: QEMU splits -initrd at commas and a module
    from its arguments at the first space."""
    check_cmdline(cmdline)
    kernel = isomod.BUILD / "kernel.bin"
    if not kernel.is_file():
        raise FileNotFoundError(f"{kernel} missing: run `make` first")
    files = inputs()
    mods = [f"{files[1][1]} ksyms"] + [f"{stripped(disk)} {disk.name}" for _, disk in files[2:]]
    if any("," in m or m.count(" ") != 1 for m in mods):
        return None
    media = ["-kernel", str(kernel), "-append", cmdline, "-initrd", ",".join(mods)]
    return base(smp, icount, mem, firmware() + media) + list(extra)


_QBOOT = {}


def firmware():
    """The -bios options of a direct boot: qboot (QEMU's minimal firmware,
    /usr/share/qemu/qboot.rom) where this QEMU has it, else QEMU's default
    SeaBIOS. A direct boot needs no BIOS services: the firmware only has
    to set up the machine (memory map, ACPI tables from QEMU) and run
    QEMU's multiboot loader. qboot sets up no PCI device: the kernel
    places the BARs of the disk itself (kernel/pci.c, pci_setup), so a
    boot with a disk runs on qboot too. SeaBIOS also probes disks, keyboard,
    option ROMs and boot order first: qboot cut a boot of hello from
    0.25 s to 0.18 s of host CPU time (1.1-1.3 s to 0.8 s of wall time at
    load 12), on every one of the suite's ~1,600 direct boots. The GRUB
    ISO boot keeps SeaBIOS (GRUB reads the CD through BIOS calls).
    ANIMA_BIOS=seabios keeps SeaBIOS for direct boots too."""
    qemu = os.environ.get("ANIMA_QEMU", "qemu-system-x86_64")
    if os.environ.get("ANIMA_BIOS") == "seabios":
        return []
    if qemu not in _QBOOT:
        try:
            p = subprocess.run([qemu, "-machine", "pc", "-nodefaults", "-display", "none",
                                "-monitor", "stdio", "-S", "-bios", "qboot.rom"],
                               input=b"quit\n", capture_output=True, timeout=20)
            _QBOOT[qemu] = p.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            _QBOOT[qemu] = False
    return ["-bios", "qboot.rom"] if _QBOOT[qemu] else []


def disk_args(image, opts=""):
    """QEMU options attaching `image` (a raw file) as the guest's disk: a
    modern-only virtio-blk PCI device (kernel/blk.c finds it on bus 0).
    cache=unsafe: the host may keep the writes in its page cache; the
    image file is whole once QEMU has exited, which is when the harness
    reads it. `opts`: more -drive options (say, throttling.* to make the
    device slow)."""
    more = f",{opts}" if opts else ""
    return ["-drive", f"file={image},if=none,id=disk0,format=raw,cache=unsafe{more}",
            "-device", "virtio-blk-pci,drive=disk0,disable-legacy=on"]


def host_slowdown():
    """How much slower than an idle host this one runs now: the 1-minute
    load average per host CPU, at least 1. A run's timeout is stretched
    by it, so a busy host (CI beside other jobs) makes runs slower, never
    failed: QEMU gets its share of the CPUs and the guest's work is the
    same."""
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except OSError:
        return 1.0


def run(cmdline, smp=1, icount=False, timeout=60, mem="512M", extra=(),
        on_line=None, iso=None, cmd=None, disk=None):
    """Boot `cmdline` and wait for the guest to end, at most `timeout` s.

    on_line(str) is called with each console line as it arrives. `iso` skips
    building one and boots it; `cmd` replaces the whole QEMU command (for
    harness tests). Otherwise the direct boot, or the ISO with ANIMA_BOOT=iso.
    `disk` attaches that image file (disk_args); None: no disk.
    """
    if disk:
        extra = list(extra) + disk_args(disk)
    ours = cmd is None                   # (a harness test's own cmd has no monitor)
    if cmd is None and not iso and os.environ.get("ANIMA_BOOT", "direct") != "iso":
        cmd = direct_command(cmdline, smp, icount, mem, extra)
    if cmd is None:
        cmd = command(iso or build_iso(cmdline), smp, icount, mem, extra)
    mondir = tempfile.mkdtemp(prefix="anima-mon-") if ours else None
    if mondir:
        cmd = with_monitor(cmd, os.path.join(mondir, "m"))
    t0 = time.monotonic()
    # The deadline is t0 + timeout * (the worst slowdown seen during the
    # run): checked again whenever it passes, so a load that rises midway
    # still stretches it.
    deadline = None if not timeout else lambda: t0 + timeout * host_slowdown()
    lines = []
    with tempfile.TemporaryFile() as err:
        try:
            # stdin is /dev/null so QEMU never puts a terminal into raw mode.
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=err)
        except OSError as e:
            if mondir:
                shutil.rmtree(mondir, ignore_errors=True)
            return Result("qemu-error", None, None, [], 0.0, f"cannot run {cmd[0]}: {e}",
                          cmd, cmdline)
        try:
            timed_out = _read(p.stdout, deadline, lines, on_line)
            if timed_out and mondir and running(p):
                lines += vcpus.state(os.path.join(mondir, "m"))   # where it hung
        finally:
            cpu = reap(p)    # killed if it runs on: timed out, or we are being interrupted
            p.stdout.close()
            if mondir:
                shutil.rmtree(mondir, ignore_errors=True)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    code = None if timed_out else p.returncode
    kind, status = decode(code, lines, timed_out)
    events, bad = parse_events(lines)
    return Result(kind, status, code, lines, time.monotonic() - t0, stderr,
                  cmd, cmdline, bad, events, cpu)


def running(p):
    """Is QEMU still running? (Without reaping it: reap wants its rusage.)"""
    return os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None


def reap(p):
    """Wait for QEMU, killing it first if it still runs; set
    p.returncode. Its CPU time, user and system seconds over all its
    threads: a boot's elapsed time less it is time the host was free
    for other work (a guest asleep in real time; conftest.record)."""
    if running(p):
        p.kill()
    try:
        _, status, ru = os.wait4(p.pid, 0)
    except ChildProcessError:      # reaped already (by Popen): no figure
        p.wait()
        return None
    p.returncode = os.waitstatus_to_exitcode(status)
    return round(ru.ru_utime + ru.ru_stime, 3)


def with_monitor(cmd, path):
    """cmd with QEMU's monitor on the unix socket `path` (instead of
    none): on a timeout, vcpus.state asks it where each vCPU is."""
    cmd = list(cmd)
    if "-monitor" in cmd:
        i = cmd.index("-monitor")
        cmd[i + 1] = f"unix:{path},server=on,wait=off"
    return cmd


def _read(pipe, deadline, lines, on_line):
    """Append console lines from pipe to `lines` until EOF (return False)
    or the deadline (return True). `deadline` is a function giving the
    current deadline (it may move later), or None. A partial last line is
    kept too."""
    def emit(raw):
        line = ANSI.sub("", raw.decode(errors="replace").replace("\r", ""))
        lines.append(line)
        if on_line:
            on_line(line)

    buf, timed_out, latest = b"", False, 0.0
    with selectors.DefaultSelector() as sel:
        sel.register(pipe, selectors.EVENT_READ)
        while True:
            left = None
            if deadline is not None:
                latest = max(latest, deadline())
                left = latest - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
            # Wake at least every 5 s to sample the load again.
            if not sel.select(None if left is None else min(left, 5.0)):
                continue
            chunk = os.read(pipe.fileno(), 65536)
            if not chunk:
                break
            *done, buf = (buf + chunk).split(b"\n")
            for raw in done:
                emit(raw)
    if buf:
        emit(buf)
    return timed_out
