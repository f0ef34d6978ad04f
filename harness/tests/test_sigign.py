"""progs/posix/sigign.c: a blocked signal whose action is SIG_IGN stays
pending, as on Linux (a blocked signal is never ignored at its sending):
raise, kill of the program's own pid, pthread_kill, sigqueue and another
process's kill, each taken by sigwait, and a thread waiting in sigwait;
unblocked or set to SIG_IGN while pending, it is discarded. Before
(ulib/libc/signal.c), each was discarded when sent and the sigwait for
it never returned."""
import pytest
from helpers import PACKAGES, self_test


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", PACKAGES + [p for p in ["det"] if p not in PACKAGES])
def test_a_blocked_ignored_signal_stays_pending(boot, pkg, smp):
    self_test(boot, "sigign", pkg, smp, 8)
