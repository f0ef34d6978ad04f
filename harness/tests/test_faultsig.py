"""progs/posix/faultsig.c: faults as signals (kernel/fault.c's EV_FAULT,
ulib/rt/fault.c, ulib/libc/sigfault.c). A program with a SIGSEGV, SIGBUS,
SIGFPE or SIGILL handler has it run on the faulting thread with Linux's
siginfo (SEGV_MAPERR vs SEGV_ACCERR, BUS_ADRERR past a mapped file's end
on the disk, FPE_INTDIV, ILL_ILLOPN; si_addr exact) and a ucontext whose
registers it may change: a handler that makes the page writable and
returns has the store land; one that steps rip over an idiv or a ud2 has
the program go on; one that siglongjmps out leaves the mask restored;
a thread other than main faults 50 times while another runs. A handler
that faults again, a blocked SIGSEGV, no handler, and SA_RESETHAND's
second fault still end the child by SIGSEGV, with the kernel's message;
a handler's change to its ucontext's uc_sigmask is the thread's mask
after it; a handler that returns to the same fault forever is a loop
the parent runs beside (1,000 faults handled, at -smp 1 too) and kills.
Before, every fault ended the program (8 of 12 cases wrong).
A thread that runs past its 16 KiB stack into the guard has its
SA_ONSTACK handler run on the alternate stack: the fault's frame goes
there too (an upcall VP's fault_redirect; a classic VP's intr_entry),
since the overflowed stack has no room for it (killed before).
A blocked fault whose page became writable while the runtime found it
blocked still kills at once, with the page-fault line, and the kernel's
disposition stays the handler's (blockfix: before, the runtime reset it
to the default and ran the store again, which passed; a later kill()
of SIGSEGV then ended the child without its handler).
Floating-point exceptions carry Linux's si_code, which the kernel reads
from the FPU's own registers (x87 status & ~control, MXCSR): each x87
exception unmasked in turn gives FPE_FLTINV 7, FPE_FLTDIV 3, FPE_FLTOVF
4, FPE_FLTUND 5, FPE_FLTRES 6 with si_addr the fwait where #MF fired
(all 0 before); the handler's own x87 code runs on a fresh FPU (before,
its first fwait re-raised the pending exception and killed the child);
a handler that clears the flags only at its third call is called three
times, as on Linux. The SSE twin (simd, #XM) checks the same where the
CPU raises #XM: QEMU 7's TCG does not, and says so.
SYS_sigdie's SIGDIE_FAULT naming a fault the child handled, forged (the
next or previous seq, the seq with high bits set, another VP, an index
past MAXVP, another signal) is -EINVAL each time and the child lives
(forge; before, every one ended it, and the high-bits seq matched the
real fault's record, as the kernel compared only its low 32 bits)."""
import subprocess

import pytest
from helpers import passed, MKE2FS, needs_e2fsprogs, pkg_cases, PKGS_DET

X87 = [("0/0", 7), ("1/0", 3), ("max/0.5", 4), ("min/1e300", 5), ("1/3", 6)]   # FPE_FLT*
KILLS = 5        # twice, blocked, dfl, reset, blockfix: each child's page-fault line


@needs_e2fsprogs
@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET) + [pytest.param("det,det=par", 2, id="par-2")])
def test_faults_reach_handlers(boot, tmp_path, pkg, smp):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "data").write_bytes(b"x" * 100)        # one page mapped past its end
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-d", str(tree), str(img), "8M"],
                   check=True, capture_output=True)
    r = boot(f"run=faultsig,pkg={pkg}", smp=smp, timeout=240, disk=img)
    passed(r, "faultsig", 33)
    assert sum(ln.endswith(" ok") for ln in r.lines if ln.startswith("faultsig: ")) == 16, r.tail()
    assert sum(ln.startswith("faultsig: forge: sig ") and ln.endswith(": -22") for ln in r.lines) == 6, r.tail()
    assert [ln for ln in r.lines if ln.startswith("faultsig: x87: ") and " calls" in ln] == [
        f"faultsig: x87: {op}: 1 calls, si_code {code}" for op, code in X87], r.tail()
    assert sum("]: killed: page fault at " in ln for ln in r.lines) == KILLS, r.tail()


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET) + [pytest.param("det,det=par", 2, id="par-2")])
def test_a_stack_overflow_reaches_an_onstack_handler(boot, pkg, smp):
    r = boot(f"run=faultsig,pkg={pkg},overflow", smp=smp, timeout=120)
    passed(r, "faultsig", 2)
    assert any(ln.startswith("faultsig: overflow: ") and ln.endswith(" ok") for ln in r.lines), r.tail()
