"""progs/posix/sigzero.c: the null signal (0) checks its target and sends
nothing, for raise, kill, pthread_kill and sigqueue alike, as glibc's.
Before (ulib/libc/signal.c), raise(0) returned -1 with EINVAL (the Open
POSIX sweep's own raise check; glibc's raise(0) is 0)."""
import pytest
from helpers import PKGS_DET, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_the_null_signal_is_a_check(boot, pkg, smp):
    self_test(boot, "sigzero", pkg, smp, 8, checks=8)
