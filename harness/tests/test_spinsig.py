"""alarm's SIGALRM interrupts a thread spinning in pthread_spin_lock
(progs/posix/spinsig.c), in the Open POSIX suite's shapes: main blocks
SIGALRM and holds the lock while the spinner, which unblocks it and
installs a handler with every signal masked, spins on it; the handler
pthread_exit's the spinner (main joins), or posts a semaphore main waits
on (sem_wait, no deadline); main does not block it and joins (the handler
runs in either thread and ends the wait either way); the spinner relocks
a lock it holds itself. Each within BOUND_NS of guest time of the
timer's deadline, under --icount (deterministic); a signal never
delivered hangs the boot (the spinner keeps its VP, main waits without a
deadline, as the suite's do). Every package with one and two VPs at -smp
1 and 2; det too (its VP count is always one): its timer thread waits on
real time, the VP's one-shot timer has the spinner yield to it, and the
handler's thread gets the token next (threadpkgs/det/det.c). Before,
det's timer thread waited on logical time, advanced here only by the
spinner's yields, so the delay had no bound in guest time."""
import pytest
from helpers import result, done, PKGS_DET

BOUND_NS = 100 * 1000 * 1000     # spinsig's BOUND_MS
# The timer's time (spinsig's due=): the spinner spins from the arming to
# the handler, and under --icount a spin in pthread_spin_lock costs about
# 30 ms of host CPU per ms of guest time: 20 ms a case made 2-5 s boots.
# 2 ms is still 2 million instructions after the spinner's setitimer, so
# it spins when the signal comes; the delay and its bound count from the
# deadline, not from the arming.
DUE_MS = 2
CASES = ("exit", "sem", "any", "relock")


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("vps", [1, 2])
@pytest.mark.parametrize("pkg", PKGS_DET)
def test_alarm_interrupts_spin_lock_waiter(boot, pkg, vps, smp):
    r = boot(f"run=spinsig,pkg={pkg},vps={vps},due={DUE_MS}", smp=smp, icount=True, timeout=180)
    res = result(r, "spinsig")
    assert res["failures"] == 0 and res["checks"] == 52, r.tail()
    for case in CASES:
        assert 0 < res[f"{case}_ns"] <= BOUND_NS, res
    done(r, 0)


# Within half a quantum: a thread waiting in signal.c's fetch_wait for
# another VP's fetch yielded without a pause, and under --icount a vCPU
# with no pause keeps QEMU's one TCG thread until its next timer (the
# 10 ms quantum end): the fetching VP, in SYS_sigtake waiting for a kernel
# lock, lost a whole quantum each time, and naive's any case ran its
# handler 50.0 ms after due (deterministic; after the earlier cases).
QUICK_NS = 5 * 1000 * 1000


@pytest.mark.parametrize("pkg", ["naive", "kthread"])
def test_handler_not_a_quantum_late(boot, pkg):
    r = boot(f"run=spinsig,pkg={pkg},vps=2,due={DUE_MS}", smp=2, icount=True, timeout=180)
    res = result(r, "spinsig")
    assert res["failures"] == 0, r.tail()
    for case in CASES:
        assert 0 < res[f"{case}_ns"] <= QUICK_NS, res
    done(r, 0)
