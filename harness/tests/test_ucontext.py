"""<ucontext.h> (ulib/libc/ucontext.S, ucontext.c) on every package at -smp 1
and 2 (progs/posix/uctx.c): getcontext/setcontext returning again, a
generator resumed 1000 times by swapcontext, makecontext with 9
arguments on an ABI-aligned stack (two stack tops 8 bytes apart), uc_link,
the signal mask and x87 control word restored, bad contexts refused with
EINVAL, generators in 4 pthreads at once, and the end through a function
returning with uc_link 0 (exit(0), as glibc)."""
import pytest
from helpers import self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_ucontext(boot, pkg, smp):
    r = self_test(boot, "uctx", pkg, smp, 34)
    assert not any("uctx: after" in l for l in r.lines), r.tail()
