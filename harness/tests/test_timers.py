"""POSIX timers (ulib/libc/timer.c, delivery in ulib/libc/signal.c) on every
package at -smp 1 and 2 (progs/posix/timers.c): alarm's return value and
alarm + pause (the handler in main, EINTR), setitimer's periodic SIGALRM
(at least a third of the ticks a window should hold), getitimer and
disarming, timer_create with SIGEV_SIGNAL (SI_TIMER, si_value), SIGEV_THREAD,
SIGEV_NONE, TIMER_ABSTIME on both clocks, overruns while the signal is
blocked (a 1 us timer's: every period up to the taking, at next to no
processor time: its timer is parked until the signal is taken), a SIGURG
timer whose default action discards it (it must go on sending: once
blocked, sigtimedwait gets the next one), sigwait taking SIGALRM when
every thread blocks it, and EINVAL
for bad clocks, sigevents, times and deleted or forged timers. Before
timer.c alarm never fired (ENOSYS) and the rest did not link."""
import pytest
from helpers import PACKAGES, self_test, only


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", PACKAGES)
def test_timers(boot, pkg, smp):
    self_test(boot, "timers", pkg, smp, 128)


@pytest.mark.parametrize("pkg", ["fifo", "naive", "kthread"])
def test_alarm_watchdog_ends_the_program(boot, pkg):
    """alarm(1) with SIGALRM's default action: status 128 + 14 while main
    sleeps (it would sleep 5 s, then print "still here")."""
    r = boot(f"run=timers,pkg={pkg},watchdog", smp=1, timeout=60)
    assert only(r, "exit", prog="timers")["status"] == 128 + 14, r.tail()
    assert not any("still here" in l for l in r.lines), r.tail()
