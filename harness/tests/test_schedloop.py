"""A thread that loops on pthread_setschedparam/pthread_setschedprio of
another thread, and on pthread_cancel of a thread that cannot act on it,
lets the others run on det: the calls are turns, as the signal calls are
(thread_turn; progs/posix/schedloop.c, the public suite's
pthread_setschedparam 5-1 and pthread_cancel 5-2 shapes). Main sleeps 100 ms, then stops
the loop and joins it. Before, on det (-smp 1 and 2) the looping thread
kept the token and main's sleep never ended: the boot timed out (LTP's
5-1 hung on det-1). Every other package passed before and after."""
import pytest
from helpers import PKGS_PAR, passed, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_sched_calls_are_turns(boot, pkg, smp):
    r = boot(f"run=schedloop,pkg={pkg}", smp=smp, timeout=60)
    res = passed(r, "schedloop", 4)
    assert res["calls"] > 0, res
