"""Setting CLOCK_REALTIME (SYS_clockset, kernel/rtclock.c; ulib/libc/time.c),
as a conformance suite run as root on Linux expects: progs/posix/clockset
sets it an hour forward and reads the new time back within 50 ms of guest
time (monotonic unmoved, advancing from there), puts it back with
settimeofday, gets EINVAL for another clock, a bad tv_nsec or a negative
tv_sec, and sees an absolute clock_nanosleep on CLOCK_REALTIME follow the
clock: 2 s away, set 10 s forward after 100 ms it ends then, set 1 s back
it lasts about 3 s; a relative sleep does not move. So does every other
absolute wait on CLOCK_REALTIME, 15 kinds at once, each in its own thread,
1 s away: pthread_cond_timedwait and clockwait, mutex_timedlock, rwlock
timedrdlock and timedwrlock, sem_timedwait, pthread_timedjoin_np,
mq_timedreceive and mq_timedsend, futex FUTEX_CLOCK_REALTIME, C11
cnd_timedwait, a process-shared condition and semaphore (waits in the
kernel), clock_nanosleep, a TIMER_ABSTIME timer (until it fires): each ends about 100 ms in when the clock is set
10 s forward, and lasts about 2 s when it is set 1 s back (a clock set
wakes every SYS_futex_wait_rt, kernel/rtclock.c). Under --icount (guest
time, not the host's speed) on every package at -smp 1 and 2; "warp":
the seconds the guest only waits pass at once (harness/qemu.py)."""
WAITS = ["cond", "clockwait", "mutex", "rdlock", "wrlock", "sem", "join", "mq_receive",
         "mq_send", "futex", "c11_cnd", "pshared_cond", "pshared_sem", "nanosleep",
         "timer"]
import pytest
from helpers import result, done, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_clockset(boot, pkg, smp):
    r = boot(f"run=clockset,pkg={pkg}", smp=smp, icount="warp", timeout=120)
    res = result(r, "clockset")
    assert res["failures"] == 0, r.tail()
    assert res["checks"] >= 161, res
    assert 90 <= res["fwd_ms"] < 1000, res       # ended by the set, not at 2 s
    assert 2900 <= res["back_ms"] < 4000, res    # a second longer
    assert sorted(res["waits"]) == sorted(WAITS), res
    for kind, (fwd, back) in res["waits"].items():
        assert 90 <= fwd < 500, (kind, res)      # ended by the set, not at 1 s
        assert 1900 <= back < 2500, (kind, res)  # a second longer
    done(r, 0)
