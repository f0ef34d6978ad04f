"""POSIX's cancellation points (XSH 2.9.5.2; progs/posix/cpoint.c), on
every package and det=par at -smp 1 and 2: with a deferred cancel
pending, read, write, pread, pwrite, readv, writev, open, openat, creat,
close, fsync, fdatasync, msync, tcdrain, fcntl F_SETLKW, lockf F_LOCK,
the mq sends and receives, select, poll, waitpid/waitid with WNOHANG and
system act on it as they begin (before: they ran and returned), the
cleanup handler running and nothing done (no file created, no message
taken, the descriptor open); a thread blocked in an empty pipe's read or
readv, a full one's write or writev, a read or poll of a pipe another
process holds (det: it held the token in the kernel, and the canceller
never ran; now it polls), F_SETLKW or F_LOCK against another
process's lock, an empty queue's receive, a full one's send, select,
poll or system is cancelled there; system's cancel kills and reaps its
child and gives SIGINT, SIGQUIT and the mask back (before: its child
was left, the signals ignored); and the calls that only may be points
(stdio, opendir, mq_open, truncate, sync, popen/pclose) do not act."""
import pytest
from helpers import PACKAGES, done, only

MODES = [(p, n) for p in PACKAGES + ["det", "det,det=par"] for n in (1, 2)]


@pytest.mark.parametrize("pkg,smp", MODES)
def test_cancellation_points(boot, pkg, smp):
    r = boot(f"run=cpoint,pkg={pkg}", smp=smp, timeout=120)
    res = only(r, "result", name="cpoint")
    assert res["failures"] == 0 and res["checks"] >= 59, r.tail()
    done(r)
