"""progs/posix/psemintr.c: semintr on the process-shared semaphores
(sem_init pshared 1 in MAP_SHARED memory, and sem_open's): a handler
without SA_RESTART that interrupts sem_wait ends it with EINTR when the
handler posts, or main right after it; the post stays in the count.
Before (ulib/pthread/pshared.c), psh_sem_wait held off the handlers
(async_hold) only inside each fwait, not between its looks (a classic
VP's wait looks again after others ran): a handler run there, outside
the wait, let the loop take the post, and sem_wait returned 0 (6 of 210
boots failed one round of 600: fifo-2, naive-1, naive-2, tutor-2)."""
import pytest
from helpers import PKGS_PAR, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_an_interrupted_shared_sem_wait_leaves_the_post(boot, pkg, smp):
    self_test(boot, "psemintr", pkg, smp, 1200, checks=1202)
