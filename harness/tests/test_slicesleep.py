"""progs/posix/slicesleep.c: main sleeps about one time slice, 3200
times, its deadline moved 25 ns a round across the end of the slice of
a thread that only computes (one per CPU); each wake-up must come within
a few slices. Two ways the VP runtime's slices (ulib/rt: tutor, prio)
lost main for good, as atforkloop's tutor-1 hung 2 boots in 60 under
load: (1) the deadline fired between the requeue of the thread the
slice turned out and the scheduler loop's pick, which gave that thread
back and dropped its slice for "nobody waits" though main was queued
behind it; (2) a slice ended between two threads (or with its thread
blocked), turned nobody out, and the next thread ran with none. Before:
tutor-1 late 7 rounds, prio-1 9, tutor-2 and prio-2 1 each (5 of 5
boots); after: 0. A computing thread that sees main make no progress
for 200 ms of the (icount) boot clock yields once and counts the round
late: a fail-safe, so a lost wake-up is a count, not a hang. Serial det
is left out: a thread that only computes makes no turns (a known limit,
docs/posix.md; slicewait's compute rounds)."""
import pytest
from helpers import PACKAGES, done, result


CASES = [pytest.param(f"pkg={p}", s, id=f"{p}-{s}") for p in PACKAGES for s in (1, 2)] + \
    [pytest.param("pkg=det,det=par", s, id=f"det=par-{s}") for s in (1, 2)]


@pytest.mark.parametrize("conf,smp", CASES)
def test_sleeper_beside_computing_threads_wakes(boot, conf, smp):
    r = boot(f"run=slicesleep,{conf}", smp=smp, icount=True, timeout=300)
    res = result(r, "slicesleep")
    assert res["rounds"] == 3200, r.tail()
    assert res["late"] == 0, (conf, smp, res)
    done(r, 0)
