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
(pthread_setschedparam) and nobody blocks SIGALRM."""
import pytest
from helpers import PACKAGES, passed


@pytest.mark.parametrize("mode", ["", ",raise"])
@pytest.mark.parametrize("smp", [1, 2])
def test_throttled_rt_lets_main_run(boot, smp, mode):
    r = boot(f"run=rtthrot,pkg=prio,vps=1,strict{mode}", smp=smp, icount=True, timeout=120)
    res = passed(r, "rtthrot", 5)
    assert res["order"] == "alarm woke spun", res
    assert res["woke_ms"] < 3000, res


@pytest.mark.parametrize("mode", ["", ",raise"])
@pytest.mark.parametrize("pkg", [p for p in PACKAGES if p != "prio"])
def test_other_packages_complete(boot, pkg, mode):
    passed(boot(f"run=rtthrot,pkg={pkg},vps=1{mode}", smp=1, icount=True, timeout=120), "rtthrot", 4)
