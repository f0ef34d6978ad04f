"""Timed waits past the kernel's bound on blocked calls
(progs/posix/parkflood): 1,100 threads each in one sem_timedwait on a
process-shared semaphore (a kernel futex wait: ulib/pthread/pshared.c
fwait), half of them posted once all wait, the rest timing out. Past
MAXKOP_SPACE (1,024: kernel/kop.c) the kernel refuses the wait with
-EAGAIN and the thread yields and waits again (thread_wait_refused,
ulib/rt/thread.c) until its deadline: every wait must end with a post
taken or with ETIMEDOUT not before its deadline, and the posts taken
plus those left make the posts made. A refused wait that returned at
once as a timeout made exactly the 76 threads past 1,024 time out
early. On the upcall packages (fifo, prio, tutor: 2 VPs); kthread's
threads are VPs (about 254 at -smp 1), so 200 there, no refusal, but
its private timed wait is thread_park_timed (the park word's kernel
sleep) and is checked the same way."""
import pytest
from helpers import done, result, pkg_cases


def parkflood(boot, words, smp, nt):
    r = boot(f"run=parkflood,{words}", smp=smp, timeout=240)
    res = result(r, "parkflood")
    assert res["failures"] == 0 and res["early"] == 0, r.tail()
    assert res["threads"] == nt and res["got"] + res["timedout"] == nt, res
    assert res["got"] + res["left"] == nt // 2, res
    done(r, 0)


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "prio", "tutor"]))
def test_refused_timed_waits_end_right(boot, pkg, smp):
    parkflood(boot, f"pkg={pkg},vps=2,psh,1100", smp, 1100)


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("kind", ["psh", "priv"])
def test_kthread_timed_waits_end_right(boot, kind, smp):
    parkflood(boot, f"pkg=kthread,{kind},200", smp, 200)
