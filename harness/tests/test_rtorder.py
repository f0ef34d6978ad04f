"""SCHED_FIFO priorities are honoured on every package that schedules
threads itself, as on Linux (progs/posix/rtorder, counted events only,
under -icount). With one VP: threads at 5, 10, 98, 7, 99, 9 waiting to
run go 99, 98, 10, 9, 7, 5, before main, which lowered itself to 1; a
broadcast from a thread at 5 that computes on runs its waiters at 7, 99,
10, 98, 9 at once, highest first; a signal of a waiter at 10 runs it
before the signalling thread at 5 takes its next step; a semaphore's
waiters at 10, 30, 20 are woken 30, 20, 10. With the package's VPs (the
Open POSIX suite's pthread_create 1-6 shape): a thread at 1 never runs
while main at 99 computes beside 4 threads at 98 that compute.

prio has had its levels; fifo, tutor and naive got them from the
runtime's real-time band (ulib/rt/rt_band.c): before, they ran threads in
arrival order whatever their priority, and the starve part's low thread
ran within a few slices. det runs one thread at a time in the program's
order (its token) and keeps the order of its waiters, kthread leaves its
threads to the kernel: there only that every thread ran and reads its
priority back ("loose")."""
import pytest
from helpers import passed, pkg_cases

ORDERED = ["fifo", "prio", "tutor", "naive"]
LOOSE = ["kthread", "det", "det,det=par"]


@pytest.mark.parametrize("pkg,smp", pkg_cases(ORDERED))
def test_each_priority_its_own_level(boot, pkg, smp):
    r = boot(f"run=rtorder,pkg={pkg},vps=1", smp=smp, icount=True, timeout=120)
    res = passed(r, "rtorder", 60)
    assert res["ready"] == "99 98 10 9 7 5 1", res
    assert res["wake"] == "99 98 10 9 7 5 5", res
    assert res["signal"] == "10 5 5", res
    assert res["sem"] == "30 20 10", res


@pytest.mark.parametrize("pkg,smp", pkg_cases(ORDERED))
def test_low_priority_waits_for_the_high_ones(boot, pkg, smp):
    r = boot(f"run=rtorder,pkg={pkg},starve", smp=smp, icount=True, timeout=120)
    res = passed(r, "rtorder", 5)
    assert res["lowran"] == -1, res


@pytest.mark.parametrize("pkg", LOOSE)
def test_other_packages_keep_the_range(boot, pkg):
    passed(boot(f"run=rtorder,pkg={pkg},vps=1,loose", smp=1, icount=True, timeout=120),
           "rtorder", 40)
