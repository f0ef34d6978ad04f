"""Setting CLOCK_REALTIME (SYS_clockset, kernel/rtclock.c; ulib/libc/time.c),
as a conformance suite run as root on Linux expects: progs/posix/clockset
sets it an hour forward and reads the new time back within 50 ms of guest
time (monotonic unmoved, advancing from there), puts it back with
settimeofday, gets EINVAL for another clock, a bad tv_nsec or a negative
tv_sec, and sees absolute waits on CLOCK_REALTIME follow the clock
(clock_nanosleep, pthread_cond_timedwait, sem_timedwait,
pthread_mutex_timedlock): 1 s away, set 10 s forward after 100 ms each
ends within the next 10 ms re-check, set 1 s back each lasts about 2 s;
a relative sleep does not move.
Under --icount (guest time, not the host's speed) on fifo and kthread
(and the other packages) at -smp 1 and 2."""
import pytest
from helpers import PACKAGES, result, done


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", PACKAGES)
def test_clockset(boot, pkg, smp):
    r = boot(f"run=clockset,pkg={pkg}", smp=smp, icount=True, timeout=120)
    res = result(r, "clockset")
    assert res["failures"] == 0, r.tail()
    assert res["checks"] >= 65, res
    assert len(res["fwd_ms"]) == len(res["back_ms"]) == 4, res
    assert all(90 <= ms < 900 for ms in res["fwd_ms"]), res      # ended by the set, not at 1 s
    assert all(1900 <= ms < 3000 for ms in res["back_ms"]), res  # a second longer
    done(r, 0)
