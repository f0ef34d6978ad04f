"""alarm's signal reaches a thread that computes without ever calling
the library (progs/posix/alarmspin.c, the public suite's sched_yield 1-1
shape: a forked child arms alarm and loops `while (1);`, and SIGALRM's
default action must end it; and a thread that loops until its own
handler sets a flag). Under det=par the timer thread was a det thread
waiting for a turn of the token that the looping thread never gave: the
fork case hung in the parent's waitpid, the spin case ended as det.spin.
Now it is a service thread outside the token, on real time, with a VP of
its own (threadpkgs/det/par.c: svc_create)."""
import pytest
from helpers import PACKAGES, result, done

CASES = [(p, "") for p in PACKAGES if p != "det"] + [("det", ""), ("det", ",det=par")]
IDS = [p + x.replace(",det=", "=") for p, x in CASES]


@pytest.mark.parametrize("mode", ["fork", "spin"])
@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg,extra", CASES, ids=IDS)
def test_alarm_reaches_a_loop_without_calls(boot, pkg, extra, smp, mode):
    r = boot(f"run=alarmspin,pkg={pkg}{extra},{mode},ms=50", smp=smp, icount=True, timeout=120)
    res = result(r, "alarmspin")
    assert res["failures"] == 0 and res["checks"] == (3 if mode == "fork" else 6), r.tail()
    done(r, 0)
