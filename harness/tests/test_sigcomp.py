"""A signal or an asynchronous cancel reaches a thread that only computes,
whatever the number of VPs (progs/posix/sigcomp.c, ulib/rt/rt_due.c):
alarm(1)'s SIGALRM runs its handler in main computing a plain loop; a
forked child's kill(getppid()) does the same; a worker that only computes,
asynchronously cancelable, is cancelled by the SIGALRM handler that runs
in it and main joins PTHREAD_CANCELED. Each within BOUND_MS (100 ms) of
guest time of the moment it was due, under --icount (deterministic). With
one VP, on tutor, prio and naive, alarm's timer thread never ran behind
the computing thread (it had not even started: no time slices there), so
the loop and cancel cases failed; now the first arming gives it a turn and
a timed wait's deadline is a turn on packages without time slices. The
pthread_spin_lock spinner at one VP is portcompat's sigspin, run here too.
det runs its timed waits on logical time: only the signal from another
process reaches its computing thread (docs/posix.md)."""
import pytest
from helpers import result, done

PACKAGES = ["fifo", "tutor", "prio", "naive", "kthread"]
BOUND_NS = 100 * 1000 * 1000     # sigcomp's BOUND_MS


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("vps", [1, 2])
@pytest.mark.parametrize("pkg", PACKAGES)
def test_signal_and_cancel_reach_computing_thread(boot, pkg, vps, smp):
    r = boot(f"run=sigcomp,pkg={pkg},vps={vps}", smp=smp, icount=True, timeout=180)
    res = result(r, "sigcomp")
    assert res["failures"] == 0 and res["checks"] == 15, r.tail()
    for case in ("loop", "kill", "cancel"):
        assert 0 < res[f"{case}_ns"] <= BOUND_NS, res
    done(r, 0)


@pytest.mark.parametrize("smp", [1, 2])
def test_det_computing_thread_gets_other_process_signal(boot, smp):
    r = boot("run=sigcomp,pkg=det,kill", smp=smp, icount=True, timeout=180)
    res = result(r, "sigcomp")
    assert res["failures"] == 0 and res["checks"] == 6, r.tail()
    assert 0 < res["kill_ns"] <= BOUND_NS, res
    done(r, 0)


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", PACKAGES + ["det"])
def test_spinner_one_vp(boot, pkg, smp):
    r = boot(f"run=portcompat,pkg={pkg},vps=1,sigspin", smp=smp, icount=True, timeout=180)
    res = result(r, "portcompat")
    assert res["failures"] == 0 and res["checks"] == 6, r.tail()
    done(r, 0)
