"""A signal from another process is pending for the thread that looks
even while another thread is taking the kernel's records
(progs/posix/sigfetch.c, ulib/libc/signal.c's fetch_as), on every package
at -smp 1 and 2: a child queues 16 real-time signals a round, main looks
(sigpending) all the while and every look must show each signal whose
sigqueue returned before it; once all are in, main unblocks them and all
16 handlers have run when pthread_sigmask returns. A worker looks all the
time too, so that main's look finds its take under way now and then.

Before the fix a look that found another thread's fetch under way
returned at once, while that fetch held records out of the kernel and not
yet pending in the library (test_psig2[tutor-2-rtq] failed so once): at
-smp 2 and 3,000 rounds, rounds with a miss were fifo 22, kthread 5,
tutor 7, prio 1, naive 147 (670 looks). Counts, not time: any miss fails.

The kernel's time slice is 1 ms (quantum=1): a round lasts until the
child runs, and main only looks meanwhile, so with 10 ms slices most of
a round waited for main's slice to end (at -smp 1 300 rounds took 6.5 s).
Shorter slices also preempt a VP amid its take more often: with that
fetch_wait planted back to returning at once, looks that missed at
-smp 2 in 3,000 rounds: fifo 117 (36 with 10 ms slices), prio 234 (214);
at -smp 1 in 300 rounds kthread 1 (none); at a third to a half of the
host CPU time.
"""
import pytest
from helpers import done, result, pkg_cases

ROUNDS = {1: 300, 2: 3000}


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_a_look_waits_for_a_fetch_under_way(boot, pkg, smp):
    r = boot(f"quantum=1 run=sigfetch,pkg={pkg},{ROUNDS[smp]}", smp=smp, timeout=240)
    res = result(r, "sigfetch")
    assert res["rounds"] == ROUNDS[smp], r.tail()
    assert (res["miss_pending"], res["miss_unblock"]) == (0, 0), res
    assert res["failures"] == 0 and res["checks"] >= 3 * ROUNDS[smp], r.tail()
    done(r, 0)
