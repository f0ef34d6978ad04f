"""POSIX's cancellation points (XSH 2.9.5.2; progs/posix/cpoint.c), on
every package and det=par at -smp 1 and 2: with a deferred cancel
pending, read, write, pread, pwrite, readv, writev, open, openat, creat,
close, fsync, fdatasync, msync, tcdrain, fcntl F_SETLKW, lockf F_LOCK,
the mq sends and receives, System V's msgsnd and msgrcv, select, poll, waitpid/waitid with WNOHANG and
system act on it as they begin (before: they ran and returned), the
cleanup handler running and nothing done (no file created, no message
taken, the descriptor open); a thread blocked in an empty pipe's read or
readv, a full one's write or writev, a read or poll of a pipe another
process holds (det: it held the token in the kernel, and the canceller
never ran; now it polls), F_SETLKW or F_LOCK against another
process's lock, an empty queue's receive, a full one's send (POSIX's
and System V's), select,
poll or system is cancelled there; system's cancel kills and reaps its
child and gives SIGINT, SIGQUIT and the mask back (before: its child
was left, the signals ignored); and the calls that only may be points
(stdio, opendir, mq_open, truncate, sync, popen/pclose) do not act.
system is also cancelled 40 times 0 to 4 ms after it began, meeting its
child's fork, exec and loop: every round cancelled, no child left. With
`jitter` (which stretches the kernel's windows) that hung at -smp 2 in 2
boots of 4 before the kernel's fix (a kill that met the child's exec
was lost: test_execkill.py), as test_cpoint did now and then under load."""
import pytest
from helpers import done, only, PKGS_PAR, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_cancellation_points(boot, pkg, smp):
    r = boot(f"run=cpoint,pkg={pkg}", smp=smp, timeout=120)
    res = only(r, "result", name="cpoint")
    assert res["failures"] == 0 and res["checks"] >= 68, r.tail()
    done(r)


@pytest.mark.parametrize("pkg", ["fifo", "prio"])
def test_system_cancel_meeting_exec(boot, pkg):
    r = boot(f"jitter run=cpoint,pkg={pkg}", smp=2, timeout=120)
    res = only(r, "result", name="cpoint")
    assert res["failures"] == 0 and res["checks"] >= 68, r.tail()
    done(r)
