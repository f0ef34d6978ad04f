"""progs/posix/slicewait.c: a thread that computes (locking and
unlocking a mutex nobody else wants, or only computing) while main,
woken, waits for a turn on the same VP gives it one within a time slice,
as Linux does SCHED_OTHER threads (the Open POSIX suite's
pthread_mutex_lock 3-1 hung on this). Before, tutor-1 and prio-1 had no
slice among one VP's threads, and naive-1 none either: every round
stuck till the worker's 5 s fail-safe. After, tutor, prio and naive
slice (the runtime's rtpkg.slice_ns; naive's by its VP's timer
interrupt); fifo has its own slices, kthread is the kernel's. The
`held` rounds (main holds a spin lock past its slice's end, so the
slice's yield waits for the unlock) stuck 3 of 3 on prio-1 before prio's
yield_swap, which queues the yielder itself, set a slice as enqueue does
(ulib/rt/rt_switch.c). Serial det
(det-1, det-2) passes the lock/unlock rounds (a sync call is a turn:
det_turn) but sticks in the compute rounds: its turns are logical and a
thread that only computes makes none (docs/posix.md); det=par passes.
There each of the 6 rounds that stick spins to the worker's fail-safe:
2 s for it (giveup=2000), not the 5 s of the others, so its two boots
spin 12 s each, not 30 (25.6 and 21.9 s of QEMU CPU time in a full run
at load ~10). A lock/unlock round, which the check is about, ends
within a few det turns, far inside 2 s."""
import pytest
from helpers import PACKAGES, done, result


CASES = [(p, "") for p in PACKAGES if p != "det"] + [("det", ""), ("det", ",det=par")]
IDS = [p + x.replace(",det=", "=") for p, x in CASES]


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg,extra", CASES, ids=IDS)
def test_slicewait(boot, pkg, extra, smp):
    serial = pkg == "det" and not extra
    r = boot(f"run=slicewait,pkg={pkg}{extra}{',giveup=2000' if serial else ''}", smp=smp, timeout=120)
    res = result(r, "slicewait")
    assert res["rounds"] == 9, r.tail()
    if serial:
        # serial det: only the compute rounds may stick (a known limit)
        assert res["stuck_lock"] == 0, (pkg, smp, res)
        done(r, 1 if res["stuck"] else 0)
        return
    assert res["stuck"] == 0, (pkg, smp, res)
    done(r, 0)
