"""A process-shared condition's broadcast wakes many waiters
(progs/posix/pshbcast: the public suite's pthread_cond_broadcast 1-2
shape). 128 threads take a process-shared mutex in MAP_SHARED memory and
wait on a process-shared condition, half with a far deadline; main
waits until all have counted, broadcasts, and joins them.

On det=par each such wait is pshown.c's poll: 100 token moves (ticks)
long, one move each time it runs out. Ticks' timeouts joined the token's
queue of the serial phase in progress, so past about 100 pollers the
queue never emptied: no parallel phase came again, main never ran, and
the program hung (no output in 280 s). Now they join the next serial
phase (threadpkgs/det/par.c's late). det.stats' moves count what happened
(the same every run, not host time): about 12,000 at 128."""
import pytest
from helpers import PKGS_PAR, passed, only, pkg_cases

N = 128


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_pshbcast(boot, pkg, smp):
    r = boot(f"run=pshbcast,pkg={pkg},{N}", smp=smp, timeout=240)
    res = passed(r, "pshbcast", 2 * N, threads=N)
    assert res["woken"] == N, res
    if "det=par" in pkg:
        st = only(r, "result", name="det.stats")
        assert st["moves"] < 30000, st    # a serial phase that ended
