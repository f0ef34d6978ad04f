"""progs/posix/dueyield.c: a 30 ms CLOCK_MONOTONIC timer fires while main
computes (a sched_yield after each chunk) and a worker only yields, 4
rounds, on every package and det, det=par, at -smp 1 and 2 under
--icount (the boot clock follows instructions: one run repeats exactly).
Before: naive-2 fired 0 of 4, its worker stopped after 236 turns. Arming
a VP's one-shot timer (SYS_timer) there took 10-60 ms of the boot clock
(QEMU takes a vCPU whose timer moves earlier off for a share of the time
to its next deadline), more than naive's 1 ms slice, so each slice's
interrupt came at the call's return and cut the thread just switched in
before it ran; that switch set a slice again (ulib/rt/rt_due.c). After:
4 of 4, the worker runs on. A round that sees no firing in 2 s of the
boot clock is a count, not a hang."""
import pytest
from helpers import done, result, pkg_cases, PKGS_DET

CASES = pkg_cases(PKGS_DET) + [pytest.param("det,det=par", 2, id="par-2")]


@pytest.mark.parametrize("pkg,smp", CASES)
def test_timer_fires_beside_a_yielding_worker(boot, pkg, smp):
    r = boot(f"run=dueyield,pkg={pkg}", smp=smp, icount=True, timeout=240)
    res = result(r, "dueyield")
    assert res["fired"] == res["rounds"] == 4, (pkg, smp, res)
    assert res["turns"] > 0, res
    done(r, 0)
