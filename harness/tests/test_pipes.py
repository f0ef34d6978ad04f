"""pipe and pipe2 (ulib/posix/pipe.c, descriptors in ulib/fd.c, waiting in
ulib/select.c) on every package at -smp 1 and 2 (progs/posix/pipes.c):
1 MiB of odd-sized writes read back in order by another thread, PIPE_BUF
records from 4 writers never interleaved, end of file once the last
write end (a dup too) is closed, EPIPE and SIGPIPE, O_NONBLOCK and the
64 KiB capacity, poll and select woken by another thread's write and
close, a blocked read cancelled and one running a handler, fstat/lseek/
isatty/fcntl, and EBADF/EINVAL/EMFILE. Before pipe.c none of it linked."""
import pytest
from harness import ROOT
from helpers import done, only, result

PACKAGES = sorted(d.name for d in (ROOT / "threadpkgs").iterdir()
                  if d.is_dir() and any(d.glob("*.c")))


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", PACKAGES)
def test_pipes(boot, pkg, smp):
    r = boot(f"run=pipes,pkg={pkg}", smp=smp, timeout=120)
    res = result(r, "pipes")
    assert res["failures"] == 0, r.tail()
    assert res["checks"] >= 78, res
    done(r, 0)


def test_sigpipe_default_ends_the_program(boot):
    r = boot("run=pipes,sigpipe", smp=1, timeout=60)
    assert only(r, "exit", prog="pipes")["status"] == 128 + 13, r.tail()
    assert not any("still here" in l for l in r.lines), r.tail()
