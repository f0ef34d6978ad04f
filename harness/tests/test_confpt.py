"""progs/ported/confpt: assertion-style POSIX conformance checks in the
manner of the public pthread, semaphore, sched, clock and nanosleep
suites (one small check per assertion, the values glibc gives on Linux),
built as a third-party program (standard headers only), on every package
at -smp 1 and 2, one boot each. Areas: attr, thread, keys, cancel (every
cancellation point the suites use, cleanup order, states and types),
mutex, cond, rwlock, barrier (and spin locks), sem (named too), sched,
clock (nanosleep's EINTR and time left), signal. Every area must report
and none may fail; the checks run are counted, so an area cannot go
missing unseen. misc: sysconf's options, limits, sigaction's flags,
alarm, and signals and asynchronous cancels that reach a thread that
only computes (where main can run beside it)."""
import pytest
from helpers import done, result, PKGS_DET, pkg_cases

AREAS = ["attr", "thread", "keys", "cancel", "mutex", "cond", "rwlock",
         "barrier", "sem", "sched", "clock", "signal", "sigwait", "misc"]
# Every package gives main a turn beside a thread that computes: with one
# VP (-smp 1) on naive, tutor and prio, main's timed sleep's deadline is a
# turn (ulib/rt/rt_due.c), so misc's checks of signals and cancels
# reaching that thread apply everywhere but det, which runs one thread at
# a time (its token) at any -smp, so never beside one that computes.
NOT_PREEMPTIVE = set()
SERIAL = {"det"}
# On those the probe of misc.c always spins to its bound (5 s unless
# told): 500 ms there, 10 s a run less. A stall of main's vCPU past it
# could only hide a det that wrongly ran main beside the thread, never
# fail a correct one.
PROBE = {"det": ",probe=500"}


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_confpt(boot, pkg, smp):
    r = boot(f"run=confpt,pkg={pkg}{PROBE.get(pkg, '')}", smp=smp, timeout=300)
    failed = {}
    for a in AREAS:
        res = result(r, f"confpt.{a}")
        assert res["checks"] > 0, res
        if res["failures"]:
            failed[a] = res["failed"]
    assert not failed, f"{pkg} -smp {smp}: {failed}\n{r.tail()}"
    shares = result(r, "confpt.preempt")["shares_cpu"]
    assert shares == ((smp > 1 or pkg not in NOT_PREEMPTIVE) and pkg not in SERIAL), (pkg, smp, shares)
    total = result(r, "confpt")
    assert total["failures"] == 0 and total["checks"] >= 885, total
    done(r, 0)
