"""C11 <threads.h> (ulib/pthread/c11threads.c, thin wrappers over the POSIX
layer) on every package of the build at -smp 1 and 2: progs/posix/c11thr
creates and joins threads with int results (also through thrd_exit),
detaches one, checks thrd_current/thrd_equal, thrd_sleep (and its -2 for
a bad duration), plain/timed/recursive mutexes (trylock busy, timedlock
timing out after its deadline and succeeding once released), condition
broadcast/signal and a timed wait that times out, tss values per thread
with destructors run at thread exit, call_once running its routine once
among racing threads, and thread_local."""
import pytest
from helpers import self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_c11_threads(boot, pkg, smp):
    self_test(boot, "c11thr", pkg, smp, 110)
