"""A signal handler that synchronizes (sem_post), run in a thread that
synchronizes all the time (progs/posix/fencesig.c), on every package,
det and det=par, at -smp 1 and 2: 1000 signals a process sends itself,
each handled, then every thread ends.

Failed before on det=par (8 of 8 boots at -smp 2, 5 of 5 at -smp 1:
det.spin after 60 s): the handler ran in the middle of det's own
hand-off (threadpkgs/det/par.c `guard`), in the thread's pthread_join
wait still inside a create's turn, and its sem_post ended that turn
there: the token was lost and the run hung (the public suite's
pthread_join 6-3 and pthread_cond_timedwait 4-3 hung the same way).
The end is counted, not timed."""
import pytest
from helpers import done, only, PKGS_PAR, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_handler_fences(boot, pkg, smp):
    r = boot(f"run=fencesig,pkg={pkg}", smp=smp, timeout=180)
    res = only(r, "result", name="fencesig")
    assert res["failures"] == 0 and res["rounds"] == 1000, r.tail()
    done(r)
