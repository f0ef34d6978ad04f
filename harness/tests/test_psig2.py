"""Signals from another process, beyond test_psig (progs/posix/psig2.c,
kernel/psig.c, kernel/kop.c, ulib/libc/signal.c), on every package at
-smp 1 and 2, one area a boot:

- hold: a signal that every thread blocks and that has no handler stays
  pending (sigwaitinfo, sigtimedwait, sigpending), SIGUSR1 and the ones
  ignored by default (SIGCHLD, SIGURG, SIGWINCH) alike; unblocked, its
  default action happens (a child ends with WTERMSIG = SIGTERM); a
  worker's sigwait takes one that main blocks too.
- intr: a handled signal cuts short, in the thread that waits, nanosleep
  and clock_nanosleep (EINTR, the time left; absolute: EINTR), sem_wait
  (EINTR), sigsuspend, pause, a pipe read (EINTR; with SA_RESTART it goes
  on), and runs inside a condition wait, a join and a mutex lock, which
  go on. Every wait here is endless unless a handler cuts it: one that is
  not is a hang, failed by the boot's timeout (no wall-time bound).
- rtq: real-time signals sent 12 times each by sigqueue are delivered 12
  times, lowest number first and in order within one, with their values;
  a standard one sent 12 times is one; past the per-process queue
  (PSIG_RTQ_MAX) sigqueue fails with EAGAIN, and every send that
  succeeded is delivered.
- exec: a child that ignores SIGUSR2, handles SIGUSR1, blocks SIGTERM and
  SIGINT with both pending (one from itself, held in the library, one
  from its own child) execs /bin/psig2: the new image has SIGUSR2
  ignored (a kill of it does nothing), SIGUSR1 at SIG_DFL, the mask, and
  both signals pending for sigwaitinfo.
Before this work: hold and exec ended by the signal the program blocked,
intr hung, rtq delivered one SIGRTMIN of 12 (and sigqueue never said
EAGAIN).
"""
import pytest
from helpers import needs_e2fsprogs, passed, program_image, pkg_cases

AREAS = {"hold": 40, "intr": 57, "rtq": 15}


@pytest.mark.parametrize("area", list(AREAS))
@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_signals_from_another_process(boot, pkg, smp, area):
    r = boot(f"run=psig2,pkg={pkg},{area}", smp=smp, timeout=90)
    passed(r, "psig2", AREAS[area], area=area)


@needs_e2fsprogs
@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_exec_keeps_ignored_signals_mask_and_pending(boot, tmp_path, pkg, smp):
    img = program_image(tmp_path, "psig2")
    r = boot(f"run=psig2,pkg={pkg},exec,{pkg}", smp=smp, timeout=90, disk=img)
    passed(r, "psig2", 2, area="exec")
