"""A thread that polls for a flag another sets, through synchronizations
that do not block where uncontended, finishes on det (progs/posix/
detpoll.c): lock, look, unlock; trylock; pthread_cond_signal or
broadcast with nobody waiting; a rwlock's rdlock and unlock; a barrier
of one. det's token moved only where a thread blocked, yielded or
exited, so the setter never ran and the poll never ended (2,000,000
polls, the program's bound, on all six kinds), where glibc on Linux
finishes. pthread_once on a fresh object and a spin lock's trylock and
unlock (the Open POSIX suite's pthread_once 6-1 loops on pthread_once
while main sleeps) were no turns yet: 2,000,000 polls, a failure, until
they became FENCED_SYNC too (pthread_once FENCED_SYNC_WAIT, a barrier's
kind: it may wait for the routine's runner). Each of these calls is now a turn (FENCED_SYNC, det_fence in
threadpkgs/det/det.c), and the token moves on after TURN_SLICE of them:
the poll counts are the same every run, at any -smp. det=par fenced
them already (every one a serial turn of its own)."""
import pytest
from helpers import result, done, DET_EXTRA, PKGS_DET, pkg_cases

KINDS = ["mutex", "trylock", "signal", "broadcast", "rdlock", "barrier", "once", "spin"]
# serial det's counts (logical: the same every run and -smp); about a
# time slice of turns each, TURN_SLICE (1000: 20 until canneal's cost
# made it 50 logical ms, test_detcost.py)
DET_POLLS = ("mutex:1000,trylock:1499,signal:997,broadcast:999,rdlock:1000,barrier:998,"
             "once:999,spin:500")


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg,extra", DET_EXTRA)
def test_poll_through_uncontended_sync_ends_on_det(boot, pkg, extra, smp):
    r = boot(f"run=detpoll,pkg={pkg}{extra}", smp=smp, icount=True, timeout=180)
    res = result(r, "detpoll")
    assert res["failures"] == 0 and res["rounds"] == len(KINDS), r.tail()
    polls = dict(kv.split(":") for kv in res["polls"].split(","))
    assert list(polls) == KINDS, res
    if not extra:
        assert res["polls"] == DET_POLLS, res
    done(r, 0)


# The new kinds on every package, det too: a poll through pthread_once or
# a spin lock's trylock and unlock ends everywhere (before, never on det).
@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_poll_through_once_and_spin_ends(boot, pkg, smp):
    r = boot(f"run=detpoll,pkg={pkg},once,spin", smp=smp, timeout=180)
    res = result(r, "detpoll")
    assert res["failures"] == 0 and res["rounds"] == 2, r.tail()
    done(r, 0)
