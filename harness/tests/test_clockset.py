"""Setting CLOCK_REALTIME (SYS_clockset, kernel/rtclock.c; ulib/libc/time.c),
as a conformance suite run as root on Linux expects: progs/posix/clockset
sets it an hour forward and reads the new time back within 50 ms of guest
time (monotonic unmoved, advancing from there), puts it back with
settimeofday, gets EINVAL for another clock, a bad tv_nsec or a negative
tv_sec, and sees an absolute clock_nanosleep on CLOCK_REALTIME follow the
clock: 2 s away, set 10 s forward after 100 ms it ends within the next
wake-up, set 1 s back it lasts about 3 s; a relative sleep does not move.
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
    assert res["checks"] >= 27, res
    assert 90 <= res["fwd_ms"] < 1000, res       # ended by the set, not at 2 s
    assert 2900 <= res["back_ms"] < 4000, res    # a second longer
    done(r, 0)
