"""Stops and continues over and over in one boot (progs/posix/selfstop.c;
kernel/pstop.c, psig.c, space.c) on every package at -smp 1 and 2: 300
rounds, most a child's raise(SIGSTOP) continued by its parent's SIGCONT
(its handler runs, it exits 7), every fifth a SIGTSTP from the parent to
a child blocked in a pipe read, continued, then fed (exit 8). The parent
blocks SIGCHLD, so every stop, continue and end sends it a SIGCHLD the
kernel holds: the report that once took kop_lock under table_lock and
deadlocked both CPUs against a child's exit (the CI's test_stop hang)
within tens of rounds at -smp 2. Every round must succeed; a hang fails
at the timeout (120 s for the five runs of a boot, stretched by the
host's load), not 268 s later."""
import pytest
from helpers import done

ROUNDS = 300
PKGS = ["fifo", "prio", "tutor", "naive", "kthread"]


@pytest.mark.parametrize("smp", [1, 2])
def test_stop_continue_rounds(boot, smp):
    """The five packages' runs share one boot per -smp, each its own
    process tree, told apart by the result's pkg (one boot of 300 rounds
    at -smp 2 cost as much QEMU CPU alone as five side by side: 7.2 s,
    8.8 s). pkg= leads the words: pstart.c takes it only there (when it
    followed the rounds, every run was fifo's)."""
    r = boot(" ".join(f"run=selfstop,pkg={p},{ROUNDS}" for p in PKGS), smp=smp, timeout=120)
    assert r.kind == "done", f"run ended as {r.kind!r} (a lost continue or a deadlock)\n{r.tail()}"
    bad = []
    for p in PKGS:
        res = [e for e in r.events("result") if e.get("name") == "selfstop" and e.get("pkg") == p]
        if not (len(res) == 1 and res[0]["failures"] == 0 and res[0]["checks"] >= 2
                and res[0]["rounds"] == ROUNDS and res[0]["ok"] == ROUNDS):
            bad.append((p, res))
    assert not bad, f"failed: {bad}\n{r.tail()}"
    done(r, 0)
