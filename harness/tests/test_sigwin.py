"""A signal from another process whose announcement reaches a thread
before it parks still cuts its wait short (progs/posix/sigwin.c, issue
34's window; ulib/rt/intr.c's intr_cut). The thread holds a runtime spin
lock while the one signal comes, so its VP's interrupt or upcall finds
it in the lock and fetches nothing; then it waits: sem_wait, sem_timedwait
(a far deadline) or a read of a pipe the sender holds. Every wait ends
only by the handler (EINTR), so a signal left unfetched in the kernel is
a hang, failed by the boot's timeout; once the handler has run the
sender sends on (it may legitimately run before the wait begins, on a
user-level package whose other VP fetched it).

On kthread (one VP per thread: nothing else can fetch it) the wait meets
the window every time: before intr_cut, sem and timed hung there on every
run at -smp 1 and 2 (the kernel cut the futex wait short once, spending
the VP's sigwake, the thread waited again, and the kernel told no more);
naive's timed wait hung at -smp 1 (its VP's whole-VP timed park).
"""
import pytest
from helpers import passed, pkg_cases


@pytest.mark.parametrize("wait", ["sem", "timed", "pipe"])
@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_signal_announced_before_the_park_cuts_the_wait(boot, pkg, smp, wait):
    r = boot(f"run=sigwin,pkg={pkg},{wait}", smp=smp, timeout=60)
    res = passed(r, "sigwin", 7, wait=wait)
    if pkg == "kthread":
        assert res["early"] == 0, res    # the window itself, not a handler before the wait


@pytest.mark.parametrize("pkg,smp", pkg_cases(["kthread", "naive"]))
def test_signal_cuts_a_process_shared_wait_on_classic_vps(boot, pkg, smp):
    """The same with sem_wait of a process-shared semaphore (its own
    kernel futex word, ulib/pthread/pshared.c): on classic VPs the
    handler runs inside the wait and sem_wait ends with EINTR. Before,
    such waits ran no handler (the signal was fetched, after intr_cut,
    but its handler waited for the wait's end): a hang on kthread and
    naive at -smp 1 and 2. An upcall package's thread blocked there is
    not cut short (the kernel cuts only classic VPs' waits): not here."""
    r = boot(f"run=sigwin,pkg={pkg},pshared", smp=smp, timeout=60)
    passed(r, "sigwin", 8, wait="pshared")
