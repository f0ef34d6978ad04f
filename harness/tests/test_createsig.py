"""Threads made with varied attributes (default, detached, 16 KiB
stacks with and without a guard, a stack the program gives from
malloc) while two threads keep signalling the
process, whose handlers post semaphores (progs/posix/createsig.c), on
every package, det and det=par, at -smp 1 and 2: 500 signals from each
sender, each handled, every joined child's stack read back intact.

Failed before on det=par (2 of 2 boots, one at -smp 1, one at 2: a
jump to address 0): a handler's sem_post, run between the create's
turn and the package's records of the child, ended that turn early
(threadpkgs/det/par.c `done_turn`), and the child's records and stack
came from the creator's private heap (the public suite's pthread_join
6-3 hung or faulted so at -smp 2). Counted, not timed."""
import pytest
from helpers import done, only, PKGS_PAR, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_create_while_signalled(boot, pkg, smp):
    r = boot(f"run=createsig,pkg={pkg}", smp=smp, timeout=240)
    res = only(r, "result", name="createsig")
    assert res["failures"] == 0 and res["signals"] == 1000 and res["made"] > 0, r.tail()
    done(r)
