"""A process-shared condition may be destroyed, and its memory reused, as
soon as a broadcast has woken its waiters, before they have left the
wait (progs/posix/pshdestroy.c: the public suite's
pthread_cond_destroy 2-1 shape, 4 threads and 2 processes a round,
the condition overwritten with zeros or 0xff right after the destroy);
and destroying one that waiters block on, with no wake-up yet, is EBUSY,
as a private condition's.

Before the change (ulib/pthread/pshared.c): destroy returned 0 at once
and a woken waiter looked at the condition's words again after the
wake; overwritten with zeros, __seq was back at the value it had kept,
so it slept on (every waiter of the zero rounds, 30 of 60, returned
ETIMEDOUT after 15 s; LTP's test hung), and destroy with blocked
waiters gave 0. Now a waiter's last touch of the condition is the
decrement of its count, which the destroy waits for."""
import pytest
from helpers import PKGS_PAR, passed, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_pshared_cond_destroy_after_broadcast(boot, pkg, smp):
    r = boot(f"run=pshdestroy,pkg={pkg}", smp=smp, timeout=180)
    res = passed(r, "pshdestroy", 200)
    assert res["bad"] == 0, res
