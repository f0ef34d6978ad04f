"""Cross-space waits past the kernel's bound (progs/tests/xflood.c): NT
threads wait on one xsem; XWQ_RECS of them at user level, the rest in
kernel futex waits (xwait's fallback), which past MAXKOP_SPACE (1,024)
the kernel refuses with -EAGAIN. A refused waiter yields before it waits
again (thread_wait_refused, ulib/rt/thread.c); before, on tutor and prio
at -smp 2 the refused ones spun on both VPs and main, which posts, got no
turn (no result within the timeout). Every waiter must wake. kthread's
threads are VPs: 200 there; naive and det run threads on classic VPs,
whose futex wait blocks the VP whole: one waiter on naive. det (own
time) never waits in the kernel (its wait held det's token): it naps on
det's clock and looks again (xsync.c's own_wait), and a post of its own
process ends the nap (ownwait.c). With more than about 20 such pollers
det stalled (30 never finished): pick() ran a timed-out waiter before
the run queue, one was always due, and main, queued, never ran. Now a
timed-out waiter goes to the queue's tail: 1,100 as elsewhere. det=par
makes at most 255 threads: 200 there."""
import pytest
from helpers import PKGS_DET, result, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET + ["det=par"]))   # det=par: the program's word
def test_xwait_past_kop_bound(boot, pkg, smp):
    nt = {"kthread": 200, "naive": 1, "det=par": 200}.get(pkg, 1100)
    r = boot(f"run=xflood,{pkg},{nt}", smp=smp)
    res = result(r, "xflood")
    assert res["threads"] == res["woke"] == nt, res
    if nt > 1024:
        assert res["fallback"] > 1024, res     # the kernel's bound was reached
