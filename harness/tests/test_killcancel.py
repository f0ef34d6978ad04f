"""progs/posix/killcancel.c: a pthread_kill then, at once, a pthread_cancel
of a thread blocked in sem_timedwait or pthread_cond_timedwait runs the
handler before the cancel acts (the cleanup handler sees it ran), as on
Linux, where both are taken, lowest signal first, as the wait returns.
Every exit of a wait (a grant, ETIMEDOUT, ECANCELED, EINTR) runs the
handlers posted since its last look (ulib/pthread/pwait.c's pw_gave_up).
Before the fix such a handler waited for a later upcall or yield: at
N = 50, 65 to 100 of each boot's 100 rounds missed on fifo, prio, naive,
tutor and kthread, at -smp 1 and 2 (det: 0, its turns let the waiter
look between the two sends). N = 30 still fails such a boot with
certainty."""
import pytest
from helpers import done, result, pkg_cases

N = 30


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_handler_runs_before_cancel_ends_the_wait(boot, pkg, smp):
    r = boot(f"run=killcancel,pkg={pkg},{N}", smp=smp, timeout=120)
    res = result(r, "killcancel")
    assert res["failures"] == 0 and res["rounds"] == N, r.tail()
    assert res["misses"] == 0, res
    done(r, 0)
