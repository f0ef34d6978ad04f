"""progs/posix/sleepkill.c: a pthread_kill that reaches a thread as its
sleep's time runs out (woken by the time, not yet run again) has its
handler run before that sleep returns, as Linux's return to user mode
does (ulib/libc/time.c, sleep_until). Before, the sleep returned without
it and the handler ran at the thread's next sleep, which it cut short:
late and cut 8 of 8 rounds on tutor-1, 7 on fifo-1 and prio-1, 1 on
fifo-2 (the Open POSIX suite's pthread_kill 1-1 failed on tutor-1). At
-smp 2 a kill may also reach the worker between its sleep's end and its
look at the flag, on another CPU (late, as on Linux; the interrupt runs
the handler there): only a cut sleep is the fault."""
import pytest
from helpers import PKGS_DET, done, pkg_cases, result


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_kill_as_a_sleep_ends_runs_the_handler_first(boot, pkg, smp):
    r = boot(f"run=sleepkill,pkg={pkg}", smp=smp, timeout=180)
    res = result(r, "sleepkill")
    assert res["handled"] == res["rounds"] == 8, r.tail()
    assert res["cut"] == 0, (pkg, smp, res)
    if smp == 1:
        assert res["late"] == 0, (pkg, smp, res)
    done(r, 0)
