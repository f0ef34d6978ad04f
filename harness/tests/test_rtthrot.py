"""Real-time throttling on prio, as Linux's sched_rt_runtime_us (950 ms
of every 1 s period): progs/posix/rtthrot, one VP, --icount. A waiter at
SCHED_FIFO 10 waits on a condition, a spinner at 5 computes for 3 s of
guest time, and main (SCHED_OTHER) joins it with alarm(1), whose handler
(main's: the threads block SIGALRM) signals the condition. Without
throttling main never ran on prio until the spinner ended, so the waiter
woke after it ("alarm spun woke" at best); now main runs in the last
50 ms of a period and the waiter before the spinner ends. The other
packages need not honour priorities: the run only completes. "raise"
is the Open POSIX shape: the threads raise themselves while running
(pthread_setschedparam) and nobody blocks SIGALRM.

The spinner stops as soon as the waiter woke (without throttling it
cannot wake before the 3 s are up), and the other packages' runs share
one boot, each its own process with one VP, told apart by their
result's pkg and raise: under -icount the spinners' 3 s of guest time
are then spent once, not once per run (QEMU CPU side by side: a strict
boot 4.62 -> 3.18 s; the ten other runs about 4 s each -> 4.47 s in
all)."""
import pytest
from helpers import PACKAGES, done, passed


@pytest.mark.parametrize("mode", ["", ",raise"])
@pytest.mark.parametrize("smp", [1, 2])
def test_throttled_rt_lets_main_run(boot, smp, mode):
    r = boot(f"run=rtthrot,pkg=prio,vps=1,strict{mode}", smp=smp, icount=True, timeout=120)
    res = passed(r, "rtthrot", 5)
    assert res["order"] == "alarm woke spun", res
    assert res["woke_ms"] < 3000, res


def test_other_packages_complete(boot):
    cases = [(pkg, mode) for mode in ("", ",raise") for pkg in PACKAGES if pkg != "prio"]
    r = boot(" ".join(f"run=rtthrot,pkg={pkg},vps=1{mode}" for pkg, mode in cases),
             smp=1, icount=True, timeout=120)
    bad = []
    for pkg, mode in cases:
        res = [e for e in r.events("result") if e.get("name") == "rtthrot" and
               e.get("pkg") == pkg and e.get("raise") == (mode == ",raise")]
        if len(res) != 1 or res[0]["failures"] != 0 or res[0]["checks"] < 4:
            bad.append((pkg + mode, res))
    assert not bad, f"failed: {bad}\n{r.tail()}"
    done(r, 0)
