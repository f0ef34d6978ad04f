"""Stops and continues over and over in one boot (progs/posix/selfstop.c;
kernel/pstop.c, psig.c, space.c) on every package at -smp 1 and 2: 300
rounds, most a child's raise(SIGSTOP) continued by its parent's SIGCONT
(its handler runs, it exits 7), every fifth a SIGTSTP from the parent to
a child blocked in a pipe read, continued, then fed (exit 8). The parent
blocks SIGCHLD, so every stop, continue and end sends it a SIGCHLD the
kernel holds: the report that once took kop_lock under table_lock and
deadlocked both CPUs against a child's exit (the CI's test_stop hang)
within tens of rounds at -smp 2. Every round must succeed; a hang fails
at the timeout (60 s, stretched by the host's load), not 268 s later."""
import pytest
from helpers import passed

ROUNDS = 300


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", ["fifo", "prio", "tutor", "naive", "kthread"])
def test_stop_continue_rounds(boot, pkg, smp):
    r = boot(f"run=selfstop,pkg={pkg},{ROUNDS}", smp=smp, timeout=60)
    assert r.kind == "done", f"run ended as {r.kind!r} (a lost continue or a deadlock)\n{r.tail()}"
    passed(r, "selfstop", at_least=2, rounds=ROUNDS, ok=ROUNDS)
