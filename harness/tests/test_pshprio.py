"""sem_post on a process-shared semaphore wakes SCHED_FIFO waiters in
priority order where the package schedules by priority
(progs/posix/pshprio): A (min+1), then B and C (min+2) block in turn, in
forked processes and then as threads; three posts must wake B, C, A on
prio, fifo and tutor (the highest first, the longest waiting among
equals: the Open POSIX suite's sem_post 8-1; fifo and tutor since their
real-time band, ulib/rt/rt_band.c, whose waiter order the futex wait now
records too: before, A, B, C there), A, B, C on kthread (the longest
waiting first). Each waiter's priority is recorded with its kernel futex wait
(FUTEX_PRIO, kernel/kop.c futex_wake_key), so the choice holds across
processes. Before, the kernel woke the newest waiter first: C, B, A on
every package. naive and det: their VPs block whole in such a wait, so
three waiting threads of one process would need three VPs (not here)."""
import pytest
from helpers import PACKAGES, passed, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases([p for p in PACKAGES if p not in ("naive", "det")]))
def test_pshared_sem_post_wakes_by_priority(boot, pkg, smp):
    r = boot(f"run=pshprio,pkg={pkg},vps=2", smp=smp, icount=True, timeout=120)
    res = passed(r, "pshprio", 20)
    want = "ABC" if pkg == "kthread" else "BCA"
    assert res["procs"] == want and res["threads"] == want, res
