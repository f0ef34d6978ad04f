"""Every SCHED_FIFO priority is its own level on prio, as Linux's 99
(progs/posix/rtorder, one VP, counted events only): threads at 5, 10,
98, 7, 99, 9 waiting to run go 99, 98, 10, 9, 7, 5; a broadcast from a
thread at 5 that computes on runs its waiters at 7, 99, 10, 98, 9 at
once, highest first; a signal of a waiter at 10 runs it before the
signalling thread at 5 takes its next step. Before, pt_level folded
1..99 into seven levels (1-15 one level): 5, 7, 9 and 10 ran in arrival
order and the woken waiters waited for the computing thread (the Open
POSIX suite's functional condvar and schedule tests). The other
packages keep priorities 1..99 (read back, every thread runs)."""
import pytest
from helpers import PACKAGES, passed


@pytest.mark.parametrize("smp", [1, 2])
def test_each_priority_its_own_level(boot, smp):
    r = boot("run=rtorder,pkg=prio,vps=1,strict", smp=smp, icount=True, timeout=120)
    res = passed(r, "rtorder", 60)
    assert res["ready"] == "99 98 10 9 7 5 1", res
    assert res["wake"] == "99 98 10 9 7 5 5", res
    assert res["signal"] == "10 5 5", res


@pytest.mark.parametrize("pkg", [p for p in PACKAGES if p != "prio"])
def test_other_packages_keep_the_range(boot, pkg):
    passed(boot(f"run=rtorder,pkg={pkg},vps=1", smp=1, icount=True, timeout=120), "rtorder", 40)
