"""A blocking wait cut by a handler, as on Linux (progs/posix/waitintr.c),
on every package at -smp 1 and 2: waitpid, wait, waitid and wait4 fail
with EINTR after a handler installed without SA_RESTART ran in them (a
SIGUSR1 from another process), and go on waiting after one installed with
it, to the child's end (before: every wait went on, as with SA_RESTART);
SIGCHLD's handler for the child waited for ends no wait (the wait reports
the child); WNOHANG answers 0 for a running child. The child waits on a
pipe, so nothing depends on time. Also det (a special package)."""
import pytest
from helpers import self_test, PKGS_DET, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_wait_ends_with_eintr_without_sa_restart(boot, pkg, smp):
    self_test(boot, "waitintr", pkg, smp, 67, checks=67)
