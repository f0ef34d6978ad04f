"""progs/posix/rrslice.c: two SCHED_RR threads of one priority on one VP
(vps=1) take turns at each time slice (each sees the other's count move
TURNS times), while two SCHED_FIFO ones do not (the first runs until it
yields: neither sees the other move); sched_rr_get_interval reports
prio's 1 ms slice. Before, prio sliced only level 0 (SCHED_OTHER): the RR
round gave up after its 5 s fail-safe with no turn and rr_ns was the VP
quantum (10 ms). Only prio has priorities; the other packages are
described in docs/posix.md. --icount: the boot clock is instructions."""
import pytest
from helpers import done, result


@pytest.mark.parametrize("smp", [1, 2])
def test_rrslice(boot, smp):
    r = boot("run=rrslice,pkg=prio,vps=1", smp=smp, icount=True, timeout=120)
    res = result(r, "rrslice")
    assert res["rr_gaveup"] == 0 and min(res["rr_turns"]) >= 3, res
    assert res["rr_ms"] <= 50, res   # a bounded number of 1 ms slices (virtual time)
    assert res["fifo_moved"] == [0, 0], res
    assert res["rr_ns"] == 1000000, res
    done(r, 0)
