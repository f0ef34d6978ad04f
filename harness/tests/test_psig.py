"""Signals between processes (kernel/psig.c, ulib/libc/signal.c, proc.c,
waitid.c): progs/posix/psig.c on fifo, kthread and prio at -smp 1 and 2.
A child's kill and sigqueue of its parent run the parent's handler
(si_pid, si_code, si_uid, si_value) and reach its sigwaitinfo; kill(0)
and kill(-pg) run the handlers of several children; the handler runs in
a worker that only computes, before it has seen 200 of its VP's quanta
(it reads only its pseudo page: a count of timer events, not host time);
SIGCHLD with si_pid, si_code and si_status for an exit and a kill;
SIGCHLD ignored and SA_NOCLDWAIT reap the children (wait: ECHILD);
waitpid(0) and waitpid(-pg) wait only for that group; waitid (P_PID,
P_PGID, P_ALL, WNOWAIT, WNOHANG, EINVAL). Hostile: bad signal numbers
and dispositions (EINVAL), a bad SYS_sigtake buffer (EFAULT, the signal
given back and its handler run after), a child sending its parent 20,000
signals (the parent runs a handler at least once and at most once per
send, and the kernel posted it at most one EV_PSIG per VP per SYS_sigtake
of its own, over its whole life: the notices follow the target's takes,
not the sends), a target that ends while it is signalled (ESRCH, then
its status)."""
import pytest
from helpers import self_test, result, pkg_cases

FLOOD = 20000


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread", "prio"]))
def test_signals_between_processes(boot, pkg, smp):
    # 86: the bad-buffer checks run in a child of one VP (give_back: a bit
    # of its status each), its sigaction and mask calls no longer counted here
    r = self_test(boot, "psig", pkg, smp, at_least=86, timeout=180)
    res = result(r, "psig")
    assert res["quanta"] < 200, res
    assert 1 <= res["flood_ran"] <= FLOOD, res
    assert res["notices"] <= res["nvp"] * (res["takes"] + 1), res
