"""A worker that loops on calls that neither block nor yield while main
sleeps lets main run on det (progs/posix/detloop.c): sem_post,
pthread_kill of itself (a handler, and signal 0), raise, kill of its
own process, pthread_sigmask; main then stops it through an atomic
flag. det's token moved only where a thread blocked, yielded or
exited, so the worker kept it for good and main's sleep never ended
(the Open POSIX suite's pthread_kill 8-1 and pthread_sigmask 18-1 hung
on det; det=par called 18-1 a spin). Each of these calls is now a turn
(thread_ops.turn, and sem_post's fence: threadpkgs/det/det.c and
par.c). On serial det each call is one
tick of logical time (20 a ms; the token moves on only when a wait is
due, or after 1000 turns in a row: det_turn), so main's 100 ms sleep ends
after exactly 1999 calls of every kind (its first tick is the token's
move to the worker as main blocks), every run, at any -smp
(under --icount: the sleep's length in whole ms is read from the clock
once, and a loaded host could round 100 ms down to 99).
The other packages pass as before (their turn op is 0)."""
import pytest
from helpers import result, done, PKG_EXTRA

KINDS = ["post", "tkill", "tkill0", "raise", "kill", "mask"]


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg,extra", PKG_EXTRA)
def test_loop_on_sync_calls_lets_sleeper_run(boot, pkg, extra, smp):
    r = boot(f"run=detloop,pkg={pkg}{extra}", smp=smp, icount=True, timeout=120)
    res = result(r, "detloop")
    assert res["failures"] == 0 and res["rounds"] == len(KINDS), r.tail()
    loops = dict(kv.split(":") for kv in res["loops"].split(","))
    assert list(loops) == KINDS, res
    assert all(int(n) > 0 for n in loops.values()), res
    if pkg == "det" and not extra:      # logical time: the same count every run
        assert all(int(n) == 1999 for n in loops.values()), res
    done(r, 0)
