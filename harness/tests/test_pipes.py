"""pipe and pipe2 (ulib/libc/pipe.c, descriptors in ulib/libc/fd.c, waiting in
ulib/libc/select.c) on every package at -smp 1 and 2 (progs/posix/pipes.c):
1 MiB of odd-sized writes read back in order by another thread, PIPE_BUF
records from 4 writers never interleaved, end of file once the last
write end (a dup too) is closed, EPIPE and SIGPIPE, O_NONBLOCK and the
64 KiB capacity, fstat's st_size (bytes unread: 0 once the reader closed
and the ring went; before the fix the freed ring's 3), poll and select woken by another thread's write and
close, a blocked read cancelled and one running a handler, fstat/lseek/
isatty/fcntl, and EBADF/EINVAL/EMFILE. Before pipe.c none of it linked."""
import pytest
from helpers import self_test, only, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_pipes(boot, pkg, smp):
    self_test(boot, "pipes", pkg, smp, 107)


def test_sigpipe_default_ends_the_program(boot):
    r = boot("run=pipes,sigpipe", smp=1, timeout=60)
    assert only(r, "exit", prog="pipes")["status"] == 128 + 13, r.tail()
    assert not any("still here" in l for l in r.lines), r.tail()
