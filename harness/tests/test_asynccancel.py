"""progs/posix/asynccancel.c: an asynchronous pthread_cancel, and a
pthread_kill with a handler, of a thread that only computes are acted
on, every round. Each of 4 kinds (cancel or kill; a loop reading the
clock, or calling random(), which holds a spin lock most of the time)
runs N rounds: start a spinner, wait till it runs, wait 0, 0.2 or 2 ms,
cancel or signal it, join. A round whose spinner computed on for 2 s of
guest time after the send (a fail-safe only, counted from the send so
that a host stall before it costs nothing) counts as a miss; none may
miss.
Two VPs, so main runs beside the spinner at -smp 1 too. Before the fix
(ulib/rt/spin.c's spin_defer_intr and spin_act_due, resume_full's
check) a kick that found the spinner inside a spin lock, or off its VP,
was lost: 8 of these 10 boots failed, with 29 to 168 misses of 600
rounds each, all in the random() loops (cancels and kills alike): at
least 1 in 10 of those loops' rounds, so N = 50 (100 such rounds a
boot, 10 misses expected at that lowest rate, none in about 4 in 100,000
boots) still fails such a boot; 150 took three times as long."""
import pytest
from helpers import done, result, pkg_cases

N = 50


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_async_cancel_and_kill_reach_a_computing_thread(boot, pkg, smp):
    r = boot(f"run=asynccancel,pkg={pkg},vps=2,{N}", smp=smp, timeout=240)
    res = result(r, "asynccancel")
    assert res["failures"] == 0 and res["rounds"] == N, r.tail()
    assert res["misses"] == 0, res
    done(r, 0)
