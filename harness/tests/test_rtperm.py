"""Real-time scheduling is root's, as on Linux without CAP_SYS_NICE under
its default RLIMIT_RTPRIO 0 (progs/posix/rtperm.c, ulib/pthread/pthread.c
rt_denied): another user may not take up SCHED_FIFO or SCHED_RR through
sched_setscheduler, sched_setparam, pthread_setschedparam,
pthread_setschedprio or pthread_create's explicit scheduling (EPERM), nor
raise its real-time priority; lowering it and leaving for SCHED_OTHER are
free; root does all of it. The same program passes on Linux 6.1 (glibc).
The open POSIX suite's sched_setscheduler 20-1 asks the same. Every
package, one and two CPUs."""

import pytest
from helpers import PKGS_DET, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_realtime_policy_needs_root(boot, pkg, smp):
    self_test(boot, "rtperm", pkg, smp, at_least=8)
