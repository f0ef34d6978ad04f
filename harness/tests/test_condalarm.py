"""A pthread_cond_signal from a SIGALRM handler wakes the condition's
waiter while another thread only computes (progs/posix/condalarm.c, the
Open POSIX suite's functional condvar shape): the waiter arms alarm(1)
holding the mutex and waits once; the handler runs in main, inside its
pthread_join, and signals, with the mutex held or (`unlocked`) without.
The alarm is alarm's timer set to ALARM_MS (setitimer, ms=): alarm(1)
and a 3 s spinner were 4 s of guest time, 3.8 s a boot under --icount;
the computing thread still runs three alarm times, so it computes when
the alarm comes, and the deadlock below came at any length.
On det and det=par's serial det, the timer thread's first turn (alarm's
first arming yields for it) went to the computing thread, so the alarm
came when it ended, before the waiter waited: the signal was lost and
det called it a deadlock. Now a service thread just made gets the token
first and the maker goes on after it (threadpkgs/det/det.c), and on det
the woken waiter runs before the computing thread goes on (early)."""
import pytest
from helpers import result, done, PKG_EXTRA

ALARM_MS = 50


@pytest.mark.parametrize("mode", ["", ",unlocked"])
@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg,extra", PKG_EXTRA)
def test_handler_cond_signal_wakes_waiter(boot, pkg, extra, smp, mode):
    r = boot(f"run=condalarm,pkg={pkg}{extra}{mode},ms={ALARM_MS}", smp=smp, icount=True, timeout=180)
    res = result(r, "condalarm")
    assert res["failures"] == 0 and res["checks"] == 7, r.tail()
    assert res["handled"] == 1 and res["woke"] == 1, res
    if pkg == "det" and not extra:
        assert res["early"] == 1, res
    done(r, 0)
