"""progs/posix/cancelorder.c: pthread_cancel of an asleep thread with
asynchronous cancelability returns before the thread's cleanup runs, as
Linux's does (one tgkill; the public suite's pthread_cancel 3-1 reads
the clock after pthread_cancel returns and fails if the cleanup read it
earlier). Main and the threads at SCHED_FIFO 30. Two shapes: 100
rounds of a thread asleep for 5 s, cancelled 20 ms after it slept
(early), and 30 of a thread that sleeps 50 ms in a loop while main
does the same, so it wakes and sleeps again on a VP of its own
(loop_early), as in the public test. Under --icount, so that the
interleaving of the two CPUs is the instructions', not the host's; with
warp (sleep=off: the program waits only on its own timers, no disk), so
the rounds' 20 and 50 ms waits, every CPU idle, pass at once in host
time: 7.5 s -> 1.3 s a boot (kthread-2 side by side, load 15), the same
guest time and QEMU CPU.
Before: pthread_cancel woke the thread, then interrupted it too (a
second system call, during which the thread's own VP ran its cleanup;
det handed it the token), and on naive and kthread a kick of the
caller's own VP gave it the stale turn of a timed wait (rt_due.c):
early 100 of 100 on naive-1, naive-2 and kthread-2; loop_early 29-30
of 30 on prio-2, tutor-2, naive-2, 15 on kthread-2; det at -smp 1 and
2 never finished. After: 0 everywhere but fifo-2's loop_early (30 of 30
before and after), where the wake-up itself kicks the idle VP the
thread last ran on (fifo's queues are per VP) and that VP runs it at
once: a race of two CPUs, which Linux's pthread_cancel has too (1 of
100 early at -smp 2 in harness/linux.py's Linux 6.1, without icount)."""
import pytest
from helpers import PACKAGES, done, result

CONFS = [f"pkg={p}" for p in PACKAGES] + ["pkg=det", "pkg=det,det=par"]


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("conf", CONFS)
def test_cancel_returns_before_the_cleanup(boot, conf, smp):
    r = boot(f"run=cancelorder,{conf}", smp=smp, timeout=300, icount="warp")
    res = result(r, "cancelorder")
    assert res["cancelled"] == res["rounds"] == 100, res
    assert res["loop_cancelled"] == res["loops"] == 30, res
    assert res["early"] == 0, (conf, smp, res)
    if not (conf == "pkg=fifo" and smp == 2):
        assert res["loop_early"] == 0, (conf, smp, res)
    done(r, 0)
