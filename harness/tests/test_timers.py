"""POSIX timers (ulib/libc/timer.c, delivery in ulib/libc/signal.c) on every
package at -smp 1 and 2 (progs/posix/timers.c): alarm's return value and
alarm + pause (the handler in main, EINTR), setitimer's periodic SIGALRM
(at least a third of the ticks a window should hold), getitimer and
disarming, timer_create with SIGEV_SIGNAL (SI_TIMER, si_value), SIGEV_THREAD,
SIGEV_NONE, TIMER_ABSTIME on both clocks, overruns while the signal is
blocked (a 1 us timer's: every period up to the taking, and the timer
thread looks at the table a few times, not each period: its timer is
parked until the signal is taken), a SIGURG
timer whose default action discards it (it must go on sending: once
blocked, sigtimedwait gets the next one), a 1 us timer whose signal is
discarded (SIG_IGN, SIGURG's default) at most once per 10 ms
of the sleep and sending again once blocked (it re-armed at each period
and its timer thread never slept: a processor, on det main never ran
again). Both count events (<animalib/ulib.h>'s timer_counts), not
processor time against wall time: that one failed at host load 17
(153 ms of CPU in 382 ms, naive-2); with the 10 ms rule undone the
count is 5402-52023 discarded in 300 ms against at most 33, and with
parking undone 1338 looks against at most 33, sigwait taking SIGALRM when
every thread blocks it, and EINVAL
for bad clocks, sigevents, times and deleted or forged timers. Before
timer.c alarm never fired (ENOSYS) and the rest did not link."""
import pytest
from helpers import PACKAGES, SMPS, done, self_test, pkg_cases

# fifo, prio and kthread share a boot per -smp (each its own process,
# told apart by the result's pkg): the run is mostly sleeps, so side by
# side they cost one run's time. naive and tutor boot alone: their
# classic VPs, beside other processes, were charged enough processor
# time in test_overrun_parked's sleep to fail its "next to no processor
# time" bound (1 run in 3, -smp 2).
SHARED = [p for p in ("fifo", "prio", "kthread") if p in PACKAGES]


@pytest.mark.parametrize("pkg,smp", pkg_cases(["+".join(SHARED)] + [p for p in PACKAGES if p not in SHARED]))
def test_timers(boot, pkg, smp):
    if pkg not in PACKAGES:
        pkgs = pkg.split("+")
        r = boot(" ".join(f"run=timers,pkg={p}" for p in pkgs), smp=smp, timeout=120)
        bad = []
        for p in pkgs:
            res = [e for e in r.events("result") if e.get("name") == "timers" and e.get("pkg") == p]
            if not (len(res) == 1 and res[0]["failures"] == 0 and res[0]["checks"] >= 128):
                bad.append((p, res))
        assert not bad, f"failed: {bad}\n{r.tail()}"
        done(r, 0)
    else:
        self_test(boot, "timers", pkg, smp, 128)


@pytest.mark.parametrize("smp", SMPS)
def test_timers_on_det_par(boot, smp):
    """The whole program on det=par, whose timer thread runs off the
    token on real time (threadpkgs/det/par.c). It hung: the timer thread
    ran on the VP a blocking or exiting token holder left before that
    VP passed the token on, and kept it (SIGURG's discarded timer), or a
    stale hand-off passed a token twice (SIGEV_THREAD's threads piled
    up); and main's sem_timedwait, with no other det thread, timed out
    at once on logical time and slept its 3 s holding the token, the
    timer's SIGEV_THREAD thread waiting behind it."""
    self_test(boot, "timers", "det,det=par", smp, 128, timeout=120)


WATCHDOG = ["fifo", "naive", "kthread"]


def test_alarm_watchdog_ends_the_program(boot):
    """alarm(1) with SIGALRM's default action: status 128 + 14 while main
    sleeps (it would sleep 5 s, then print "still here"), on fifo, naive
    and kthread side by side in one boot (spaces 1-3 in command-line
    order, told apart by @start's argv). pkg= leads the words: pstart.c
    takes it only there (after "watchdog" every run was fifo's)."""
    r = boot(" ".join(f"run=timers,pkg={p},watchdog" for p in WATCHDOG), smp=1, timeout=60)
    space = {e["space"]: e["argv"] for e in r.events("start")}
    for p in WATCHDOG:
        ex = [e for e in r.events("exit") if f"pkg={p}" in space.get(e["space"], [])]
        assert len(ex) == 1 and ex[0]["status"] == 128 + 14, f"{p}: {ex}\n{r.tail()}"
    assert not any("still here" in l for l in r.lines), r.tail()
