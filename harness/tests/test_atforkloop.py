"""progs/posix/atforkloop.c: a thread loops on pthread_atfork while main
sleeps 2 ms, then sets the flag the loop reads. det's sleep is logical
time, moved by turns; pthread_atfork was none (a spin lock of the
library's), so det's token never left the loop: before, det hung at
-smp 1 and 2 and det=par ended with det.spin after 60 s (the public
suite's pthread_atfork 3-3). Now it is a turn (ulib/pthread/pfork.c).
Package-neutral: every package must finish it."""
import pytest
from helpers import done, result, PKGS_PAR, pkg_cases


@pytest.mark.parametrize("conf,smp", pkg_cases([f"pkg={p}" for p in PKGS_PAR]))
def test_loop_on_atfork_lets_a_sleeper_wake(boot, conf, smp):
    r = boot(f"run=atforkloop,{conf}", smp=smp, timeout=90)
    assert result(r, "atforkloop")["done"] == 1, r.tail()
    done(r, 0)
