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
from helpers import done, only, program_image, needs_e2fsprogs, pkg_cases, DET_SMPS


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_queues_are_shared_with_forked_children(boot, pkg, smp):
    r = boot(f"run=mqx,pkg={pkg},fork", smp=smp, timeout=180)
    res = only(r, "result", name="mqx", mode="fork")
    assert res["failures"] == 0 and res["checks"] >= 54, r.tail()
    done(r)


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_unrelated_programs_share_a_queue_by_name(boot, pkg, smp):
    r = boot(f"run=mqx,pkg={pkg},a run=mqx,pkg={pkg},b", smp=smp, timeout=180)
    for mode in ("a", "b"):
        res = only(r, "result", name="mqx", mode=mode)
        assert res["failures"] == 0 and res["checks"] >= 12, r.tail()
    done(r)


@needs_e2fsprogs
@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_exec_drops_the_notification(boot, tmp_path, pkg, smp):
    """A child registers SIGEV_THREAD, then execs /bin/mqx: its queue
    descriptors close, and the registration with them (POSIX): the parent
    may register (before: EBUSY while the child lived, and a send raised
    the internal signal 32 in an image with no handler for it); an exec
    that fails keeps the caller's registration."""
    r = boot(f"run=mqx,pkg={pkg},exec", smp=smp, timeout=180, disk=program_image(tmp_path, "mqx"))
    res = only(r, "result", name="mqx", mode="exec")
    assert res["failures"] == 0 and res["checks"] >= 11, r.tail()
    done(r)


@pytest.mark.parametrize("pkg,smp", DET_SMPS)
def test_queue_waits_on_det(boot, pkg, smp):
    """A queue's waits are det's own (ulib/pthread/pshown.c): ptest's
    mqueue area (a receiver waits in the same process for main's send,
    a cancel and a handler end such a wait) and mqx's forked checks pass
    on det and det=par. Before: the receiver slept in the kernel futex,
    which det's token never saw as a block, and det=par hung there
    (test_ptest_on_det[par-2])."""
    r = boot(f"run=ptest,pkg={pkg},mqueue", smp=smp, timeout=300)
    assert only(r, "result", name="ptest.mqueue")["ok"], r.tail()
    done(r)
    r = boot(f"run=mqx,pkg={pkg},fork", smp=smp, timeout=300)
    res = only(r, "result", name="mqx", mode="fork")
    assert res["failures"] == 0 and res["checks"] >= 54, r.tail()
    done(r)
