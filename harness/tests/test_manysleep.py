"""Hundreds of threads in long timed waits at once (progs/posix/manysleep):
600 threads on 2 VPs, 400 of them in 100 s waits (pthread_cond_timedwait
on CLOCK_REALTIME and CLOCK_MONOTONIC, sem_timedwait, nanosleep), the
rest in untimed waits. Once all wait, 12 short waits 20 ms apart (a
condition, sem_clockwait, clock_nanosleep) must end in deadline order,
never early, with ETIMEDOUT (0 for the sleep); then main broadcasts,
posts and signals, and every thread must end long before its deadline.

Before the timed waits were user-level on the upcall packages (the VP's
timer queue, ulib/rt/rt_tq.c), each sleeper slept in the kernel holding
two of its VP's 128 event places: past about 127 sleepers a VP blocked
whole until a sleep ended, and the program ran its 100 s (fifo, prio,
tutor). Guest time under --icount, so the host's speed does not matter.
kthread's threads are VPs (about 254 at -smp 1): 200 threads, 120 long."""
import pytest
from helpers import passed, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_manysleep(boot, pkg, smp):
    nt, nl = (200, 120) if pkg == "kthread" else (600, 400)
    r = boot(f"run=manysleep,pkg={pkg},vps=2,{nt},{nl}", smp=smp, icount=True, timeout=180)
    res = passed(r, "manysleep", 3 * nt)
    assert res["threads"] == nt and res["long"] == nl, res
    assert res["setup_ms"] < 10000, res    # nobody's wait blocked the others'
    assert res["wake_ms"] < 10000, res     # not the 100 s deadline
    assert res["late_ms"] < 1000, res      # short deadlines on time
