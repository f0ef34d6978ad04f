"""The `prio` package's own tests (progs/tests/priotest.c): strict priority
order, preemption on creation, round robin within a level, no starvation
within a level, waiters woken highest priority first (waitq), and
user-level preemption of low-priority spinners (its
latency reported under icount, in guest instructions)."""
import pytest
from helpers import done, result


def run(boot, test, vps=1, smp=1, icount=False, timeout=120, ms=None):
    extra = f",{ms}" if ms else ""
    r = boot(f"run=priotest,{test},{vps}{extra}", smp=smp, icount=icount, timeout=timeout)
    res = result(r, f"prio.{test}")
    assert res["ok"], f"{res.get('why')}\n{r.tail()}"
    done(r, 0)
    return res, r


@pytest.mark.parametrize("test", ["order", "preempt", "rr", "waitq"])
def test_one_vp(boot, test):
    run(boot, test, icount=True)


# At -smp 2 under icount this schedule once killed priotest with a page
# fault at 0 in thread_yield: thread_self() loaded the VP page's address
# and then its current_thread, and an upcall between the two loads moved
# the thread to another VP, whose current_thread was 0. thread_self() is
# one %gs load now (GS_VPPAGE); this case is the regression test (it
# failed every run before, being deterministic under icount).
@pytest.mark.parametrize("smp", [1, 2, 4])
def test_no_starvation_within_a_level(boot, smp):
    # Policy, in guest time the host cannot skew (icount: every vCPU runs
    # by instructions, in turn): a window of 1 s, 100 quanta. In wall time
    # a vCPU the host deschedules stalls the thread on it; at -smp 4 on a
    # loaded 2-core host one thread got 5,230 yields to another's 32,436
    # in 3 s. (At -smp 1, icount is also deterministic: the same counts.)
    res, _ = run(boot, "starve", vps=4, smp=smp, icount=True, timeout=240)
    print(f"prio starve icount smp={smp}: yields per thread {res['min']}..{res['max']}")
    if smp == 1:
        res2, _ = run(boot, "starve", vps=4, smp=1, icount=True, timeout=240)
        assert (res["min"], res["max"]) == (res2["min"], res2["max"]), (res, res2)


def test_no_starvation_wall_clock(boot):
    # The same in wall time on one vCPU, where only the kernel's quanta and
    # warnings move threads between VPs. A window of 100 quanta: a quantum
    # a thread loses on a VP preempted unwarned (a host stall made it miss
    # its warning) is 1% of it; with 400,000 yields (45 ms under icount) it was
    # a quarter, and CI saw 14,389 vs 60,153.
    res, _ = run(boot, "starve", vps=4, smp=1, timeout=240)
    print(f"prio starve wall smp=1: yields per thread {res['min']}..{res['max']}")


@pytest.mark.parametrize("vps", [2, 4])
def test_computing_threads_share_the_cpu(boot, vps):
    # VPS threads of one level that never yield, on one CPU under icount
    # (deterministic): only the kernel's warnings move them, and a thread
    # handed off at one went to the head of its level, so the next VP
    # picked it again: 6.4M iterations against 93M, and ptest sigasync's
    # main (prio-1) waited beside a computing thread for its whole 2 s.
    # Not at -smp 2 under icount: QEMU's round robin of vCPUs there gave
    # two threads each alone on its CPU 16M and 84M (a kernel trace showed
    # no switch at all), so that figure is QEMU's, not the package's.
    res, _ = run(boot, "share", vps=vps, smp=1, icount=True, ms=300)
    print(f"prio share icount smp=1 vps={vps}: iterations per thread {res['min']}..{res['max']}")


@pytest.mark.parametrize("vps,smp", [(1, 1), (2, 1), (2, 2), (4, 4)])
def test_high_priority_preempts_spinners(boot, vps, smp):
    run(boot, "latency", vps=vps, smp=smp, timeout=180)


def test_wakeup_latency_icount(boot):
    # One CPU under icount: deterministic instruction counts. The woken
    # level-7 thread runs a few thousand instructions after the post, not
    # after the spinner's quantum (millions of instructions).
    res, r = run(boot, "latency", vps=2, smp=1, icount=True)
    res2, _ = run(boot, "latency", vps=2, smp=1, icount=True)
    assert res["post_ns"] == res2["post_ns"], (res, res2)
    # The spinners hold both VPs at the post: two level-0 spinners time-
    # slicing on one VP while the other had not started made the post
    # preempt the poster's own VP (1,330 instructions, not 680).
    assert res["vps_held"] == 2, res
    print(f"prio wake-up latency under icount: {res['post_ns']} instructions "
          f"(sleep wake {res['wake_ns']})")
    assert res["post_ns"] * 100 < 10_000_000, res   # far below one 10 ms quantum
