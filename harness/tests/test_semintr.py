"""progs/posix/semintr.c: a handler without SA_RESTART that interrupts
sem_wait ends it with EINTR even when the handler posts the semaphore
itself; the post stays in the count, as on Linux (the wait gave up
before the handler ran). Before (ulib/pthread/pwait.c), the handler ran
inside the wait with the waiter still queued, and its post handed the
waiter the token: sem_wait returned 0 and the count stayed 0, on every
package. With SA_RESTART the wait takes the post."""
import pytest
from helpers import PKGS_PAR, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_an_interrupted_sem_wait_leaves_the_post(boot, pkg, smp):
    self_test(boot, "semintr", pkg, smp, 20, checks=20)
