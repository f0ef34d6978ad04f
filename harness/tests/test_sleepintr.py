"""A wait cut short by a handler that another process's signal runs, as
on Linux (progs/posix/sleepintr.c), on every package, det and det=par,
at -smp 1 and 2: nanosleep, clock_nanosleep (relative and absolute),
sem_timedwait, sem_wait, sigtimedwait of another signal and select end
with EINTR after the handler ran, well before their 10 s timeout.

Failed before: on det and det=par the timed ones ran to their timeout
(a timed-out wait slept the rest of its real deadline in the kernel,
and the signal that cut that sleep short was never taken there: the
public suite's clock_nanosleep 1-3 and sem_timedwait 9-1); a det thread
blocked alone in sem_wait never saw the signal and det called it a
deadlock (its idle wait, cut short, only waited again), det=par at once
(no wait for a wake-up from outside); and sigtimedwait went on to its
timeout on naive, kthread and det while the other signal's handler ran
in its naps. The sender repeats the signal every 20 ms until the wait
ends, so nothing depends on time but the 10 s bound."""
import pytest
from helpers import self_test, PKGS_PAR, pkg_cases



@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_wait_ends_with_eintr(boot, pkg, smp):
    self_test(boot, "sleepintr", pkg, smp, 14, timeout=240, checks=14)
