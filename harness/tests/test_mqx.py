"""POSIX message queues are named system-wide and shared across
processes, as on Linux (ulib/libc/mqueue.c; progs/posix/mqx.c), on every
package at -smp 1 and 2. Forked: the child's inherited mqd_t is the same
queue; a name made after the fork opens it in the child; a receive or a
send waiting in one process ends with another's send or receive; a
registration is one process's (EBUSY for another) and a child's send
raises the parent's signal (SI_MESGQ, its value, the child's pid) or
starts its SIGEV_THREAD thread; one left by a process that ended is
taken over; an unlinked name is gone while open descriptors keep the
queue; a lock word left held by an ended process does not stop the
queue; Linux's limits (EINVAL, EMFILE for RLIMIT_MSGQUEUE's bytes, the
10 x 8192 default); a mqd_t is a close-on-exec descriptor and another
descriptor is EBADF. Unrelated: two boot programs open the same names
and each one's receive waits for the other's send. Before: queues lived
in each program's memory, so every cross-process check failed."""
import pytest
from helpers import PACKAGES, done, only

SMPS = [1, 2]


@pytest.mark.parametrize("smp", SMPS)
@pytest.mark.parametrize("pkg", PACKAGES)
def test_queues_are_shared_with_forked_children(boot, pkg, smp):
    r = boot(f"run=mqx,pkg={pkg},fork", smp=smp, timeout=180)
    res = only(r, "result", name="mqx", mode="fork")
    assert res["failures"] == 0 and res["checks"] >= 54, r.tail()
    done(r)


@pytest.mark.parametrize("smp", SMPS)
@pytest.mark.parametrize("pkg", PACKAGES)
def test_unrelated_programs_share_a_queue_by_name(boot, pkg, smp):
    r = boot(f"run=mqx,pkg={pkg},a run=mqx,pkg={pkg},b", smp=smp, timeout=180)
    for mode in ("a", "b"):
        res = only(r, "result", name="mqx", mode=mode)
        assert res["failures"] == 0 and res["checks"] >= 12, r.tail()
    done(r)
