"""Hundreds of threads blocked at once in process-shared waits
(progs/posix/manypsh): 400 threads of a process and 40 of its forked
child, on 2 VPs each, wait on a process-shared condition and semaphore in
MAP_SHARED | MAP_ANONYMOUS memory; then the parent broadcasts and posts,
and every waiter must wake.

Each such wait is a kernel futex wait that blocks only its thread on the
upcall packages (fifo, prio, tutor). Before the kernel's done list
(kernel/kop.c), each held a place in its VP's event queue of 128 until
it ended: past about 127 waiters a VP blocked whole and the program hung
(the boot's timeout). Guest time under --icount. kthread's threads are
VPs (about 254 at -smp 1): 160 and 30. naive and det run threads on
classic VPs, which such a wait blocks whole (docs/posix.md): not here."""
import pytest
from helpers import PACKAGES, passed, pkg_cases

PKGS = [p for p in PACKAGES if p != "naive"]


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS))
def test_manypsh(boot, pkg, smp):
    nt, nc = (160, 30) if pkg == "kthread" else (400, 40)
    r = boot(f"run=manypsh,pkg={pkg},vps=2,{nt},{nc}", smp=smp, icount=True, timeout=180)
    res = passed(r, "manypsh", nt + 5)
    assert res["threads"] == nt and res["child"] == nc and res["woke"] == nt + nc, res
    assert res["setup_ms"] < 20000, res    # nobody's wait blocked the others'
    assert res["wake_ms"] < 20000, res
