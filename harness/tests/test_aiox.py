"""POSIX asynchronous I/O (<aio.h>: ulib/libc/aio.c, aiowait.c, lio.c;
progs/posix/aiox.c) on every package at -smp 1 and 2, det and det=par
too: aio_read/aio_write/aio_fsync round trips on a RAM disk file, the
errors glibc gives (EBADF and a negative offset as the request's
status, a bad aio_reqprio or fsync op at once, lio_listio's EINVAL and
EIO), SIGEV_SIGNAL (SI_ASYNCIO, the value) and SIGEV_THREAD for a
request and for a LIO_NOWAIT list, O_APPEND writes in submission order,
and, with a request held running by a write to a full pipe: EINPROGRESS,
aio_suspend's timeout (EAGAIN), EINTR and cancellation, aio_cancel
(ECANCELED, AIO_NOTCANCELED, AIO_ALLDONE), AIO_MAX then EAGAIN, and a
fork's child without the parent's requests. Before <aio.h> existed the
program did not build."""
import pytest
from helpers import PKGS_DET, done, pkg_cases

CASES = pkg_cases(PKGS_DET) + [pytest.param("det,det=par", 2, id="par-2")]


@pytest.mark.parametrize("pkg,smp", CASES)
def test_aio(boot, pkg, smp):
    r = boot(f"run=aiox,pkg={pkg}", smp=smp, timeout=240)
    res = [e for e in r.events("result") if e.get("name") == "aiox"]
    assert res and res[0]["failures"] == 0 and res[0]["checks"] >= 110, r.tail()
    done(r, 0)
