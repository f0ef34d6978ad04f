"""Timers across fork (progs/posix/timefork.c; ulib/libc/timer.c,
itimer.c), on every package at -smp 1 and 2. POSIX: a fork's child
inherits none of its parent's alarm, setitimer or timer_create timers.
The parent arms alarm, ITIMER_VIRTUAL and a timer_create timer for 100 s;
in the child alarm(0) is 0, getitimer says both disarmed, the parent's
timer id is EINVAL and nothing is pending, and what the child arms itself
fires (ITIMER_REAL, a timer of its own, ITIMER_VIRTUAL), each taken by
sigwaitinfo; the parent's still run. Before: the child's getitimer,
alarm(0) and timer_gettime showed the parent's timers (4 checks failed)
and its own arming never fired (the timer thread it woke was the
parent's copy): a hang."""
import pytest
from helpers import PACKAGES, done, result


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", PACKAGES)
def test_a_forks_child_has_no_timers_of_its_parent(boot, pkg, smp):
    r = boot(f"run=timefork,pkg={pkg},fork", smp=smp, timeout=60)
    res = result(r, "timefork")
    assert (res["area"], res["failures"]) == ("fork", 0), r.tail()
    assert res["checks"] >= 9, res
    done(r, 0)
