"""progs/posix/spinunl.c: pthread_spin_unlock by a thread that holds no
spin lock (a second unlock; an unlock of another thread's lock, as the
Open POSIX suite's pthread_spin_unlock 3-1 does) frees the lock and
returns 0, as glibc's, and leaves the caller an ordinary thread. It took
one off the caller's count of spin locks held (struct thread's crit) all
the same, to -1: the caller then counted as in a spin lock for good, so
no time slice switched it out and no interrupt ran a handler while it
computed. Before, both rounds failed (the handler never ran) on fifo-1,
kthread-1 and naive-1. Serial det has no time slices: its main yields
now and then (argument `yield`)."""
import pytest
from helpers import PACKAGES, done, pkg_cases, result

CASES = pkg_cases(PACKAGES) + [pytest.param("det", s, id=f"det-{s}") for s in (1, 2)] + \
    [pytest.param("det,det=par", 2, id="par-2")]


@pytest.mark.parametrize("pkg,smp", CASES)
def test_spin_unlock_by_a_non_holder(boot, pkg, smp):
    arg = ",yield" if pkg == "det" else ""
    r = boot(f"run=spinunl,pkg={pkg}{arg}", smp=smp, timeout=240)
    res = result(r, "spinunl")
    assert res["failures"] == 0 and res["rounds"] == 2, r.tail()
    done(r, 0)
