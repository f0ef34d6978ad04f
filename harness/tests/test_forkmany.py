"""A process may have 100 children unreaped (MAXCHILD is half the space
table, 128; it was 32): progs/posix/forkmany.c forks 100, half from a
SIGUSR1 handler that raise() runs, half from main, before it waits, then
wait() collects each once with its own status and the next is ECHILD;
every frame comes back (avail_lost 0), on every package at -smp 1 and 2.
Before, the 33rd fork was EAGAIN (musl's libc-test raise/fork test)."""
import pytest
from helpers import audit_passed, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_a_process_forks_100_before_it_waits(boot, pkg, smp):
    r = boot(f"memcheck run=forkmany,pkg={pkg}", smp=smp, timeout=240)
    audit_passed(r, "forkmany")
