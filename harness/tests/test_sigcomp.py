"""A signal or an asynchronous cancel reaches a thread that only computes,
whatever the number of VPs (progs/posix/sigcomp.c, ulib/rt/rt_due.c):
a 30 ms ITIMER_REAL's SIGALRM (alarm's timer; alarm(1) before, a guest
second of computing per case, 4 of each boot's 5.5 s) runs its handler
in main computing a plain loop; a
forked child's kill(getppid()) does the same; a worker that only computes,
asynchronously cancelable, is cancelled by the SIGALRM handler that runs
in it and main joins PTHREAD_CANCELED. Each within BOUND_MS (100 ms) of
guest time of the moment it was due, under --icount (deterministic). With
one VP, on tutor, prio and naive, alarm's timer thread never ran behind
the computing thread (it had not even started: no time slices there), so
the loop and cancel cases failed; now the first arming gives it a turn and
a timed wait's deadline is a turn on packages without time slices. The
pthread_spin_lock spinner at one VP is portcompat's sigspin, run here too
(its timer 10 ms, not alarm(1)'s second: a guest second of pause-spinning
was 30-54 s of each boot).
det is in the list too: its timer thread waits on real time and the VP's
one-shot timer has the computing token holder yield to it; a handler or
an asynchronous cancel for a thread off the token gives it the token
next (threadpkgs/det/det.c). Before that, only the signal from another
process reached det's computing thread: loop and cancel never ran.
`pure` computes on volatile flags alone: a timer_create timer's signal,
a pthread_kill from its handler, a kill(getpid()) from the thread that
took it and an asynchronous cancel from that handler, each hop within
the bound, on det, and on fifo and kthread (the packages that run a
queued thread beside computing ones with fewer VPs than threads); on
det before the change it hung (the timer never fired). pure runs in the
same boot as the other cases, after them (PURE)."""
import pytest
from helpers import result, done, pkg_cases, PKGS_DET

BOUND_NS = 100 * 1000 * 1000     # sigcomp's BOUND_MS


# The packages `pure` runs on; on these the one boot of each (pkg, vps,
# smp) runs pure after the other three cases, in the same program (one
# after the other, as named), where it had a boot of its own (12 boots,
# test_pure_loops_get_timer_kill_and_cancel's): the same checks and
# bound, each case's delay reported apart.
PURE = ["det", "fifo", "kthread"]
CASES = ["loop", "kill", "cancel"]
CHECKS = 17            # sigcomp's CHECKs in the three cases, and in pure alone
CHECKS_ALL = 34        # in the four


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("vps", [1, 2])
@pytest.mark.parametrize("pkg", PKGS_DET)
def test_signal_and_cancel_reach_computing_thread(boot, pkg, vps, smp):
    cases = CASES + ["pure"] if pkg in PURE else CASES
    named = "," + ",".join(cases) if pkg in PURE else ""
    r = boot(f"run=sigcomp,pkg={pkg},vps={vps}{named}", smp=smp, icount=True, timeout=180)
    res = result(r, "sigcomp")
    want = CHECKS_ALL if pkg in PURE else CHECKS
    assert res["failures"] == 0 and res["checks"] == want, r.tail()
    for case in cases:
        assert 0 < res[f"{case}_ns"] <= BOUND_NS, (case, res)
    done(r, 0)


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_spinner_one_vp(boot, pkg, smp):
    r = boot(f"run=portcompat,pkg={pkg},vps=1,sigspin", smp=smp, icount=True, timeout=180)
    res = result(r, "portcompat")
    assert res["failures"] == 0 and res["checks"] == 6, r.tail()
    done(r, 0)
