"""Real-time signals sent to a thread queue one instance per send, up to
_SC_SIGQUEUE_MAX; past it pthread_kill returns EAGAIN and raise fails
with EAGAIN, as Linux's tgkill does, so no send that returned 0 is lost
(progs/posix/rtqueue.c, ulib/libc/signal.c's pend), on every package at
-smp 1 and 2 (det too). kill's instance past the bound stays the pending bit (one
more run), Linux's SI_USER rule. The same program on Linux 6.1 and glibc:
max 1787 (RLIMIT_SIGPENDING), every check passes.

Before: the queue held 64 and a pthread_kill past them returned 0 while
its instance was lost (only the bit stayed), so musl libc-test's
raise-race (100 pthread_kills of SIGRTMIN+1 to a thread that spins until
its handler has run 100 times) spun for good: 64 ran. Counts, not time.
"""
import pytest
from helpers import done, result, PKGS_DET, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_rt_signals_queue_or_fail_with_eagain(boot, pkg, smp):
    r = boot(f"run=rtqueue,pkg={pkg}", smp=smp, timeout=120)
    res = result(r, "rtqueue")
    assert res["max"] >= 200, res
    assert res["sent"] == res["max"] == res["thread_ran"], res
    assert res["raised"] == res["max"] and res["raise_ran"] == res["raised"] + 1, res
    assert res["failures"] == 0 and res["checks"] >= 12, r.tail()
    done(r, 0)
