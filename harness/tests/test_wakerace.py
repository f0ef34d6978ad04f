"""Lost wake-ups in park/unpark (progs/tests/wakerace.c): two threads hand a flag
back and forth, each making the other's condition true and then calling
thread_unblock, with the stale permits such a ping-pong leaves behind.

thread_unblock used to return on finding a permit after a plain load,
which x86 lets pass the waker's own store still in its store buffer: the
target consumed the old permit, reread the flag unchanged and parked for
good. At -smp 2 with 300,000 rounds, fifo hung in 4 runs of 4 and this
test failed for fifo and naive (the guest's watchdog reports it and exits
3); with the locked read-modify-write, 12 runs of fifo and naive (two at a
time) all finished. Every package goes through the same thread_unblock;
the cheap ones run many rounds, kthread (a futex per handoff, ~40 us)
fewer, and did not hit the race in 20,000. Wall-clock TCG, -smp 2: the race needs two CPUs."""
import pytest
from harness import ROOT
from helpers import done, result

PKGS = [("fifo", 300000), ("kthread", 20000)]
if (ROOT / "threadpkgs/naive/naive.c").exists():
    PKGS.append(("naive", 300000))


@pytest.mark.parametrize("pkg,rounds", PKGS)
def test_no_lost_wakeup(boot, pkg, rounds):
    r = boot(f"quantum=2 run=wakerace,{pkg},4,{rounds}", smp=2, timeout=120)
    assert not [l for l in r.lines if "wakerace:" in l], r.tail()
    res = result(r, "wakerace")
    assert (res["package"], res["vps"], res["rounds"]) == (pkg, 4, rounds), res
    done(r, 0)


def test_permit_consumption(boot):
    # progs/tests/permitrace.c: a block that finds a permit consumes it,
    # then its caller rereads the condition; with a plain store for the
    # consumption x86 let that load pass the store, and an unblock that
    # made the condition true in between found the old permit and left:
    # a wake-up lost (kthread's wakerace and fifo+kthread's conformance
    # park were found with both threads parked). The litmus loop meets
    # the window thousands of times in 200,000 iterations: 431 to 2,481
    # losses in each of 4 boots before the locked exchange, 0 after.
    r = boot("run=permitrace,200000", smp=2, timeout=60)
    res = result(r, "permitrace")
    assert (res["lost_commit"], res["lost_timed"], res["parked_seen"]) == (0, 0, 0), res
    done(r, 0)
