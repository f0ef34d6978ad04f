"""One boot program's signals never reach another boot program's
processes (kernel/space.c space_may_signal; docs/security.md): every boot
program starts in session 0, each a login of its own there, so a
hostile program's kill(-1, SIGKILL) ends its own child but not the
program beside it, and every other pid it guesses is EPERM
(progs/posix/killreach.c). The killer boots first, as space 1, so the
waiter is not the space kill(-1) spares anyway. Before (the session rule
alone): the waiter was killed and reached as a sibling."""
import pytest
from helpers import result


@pytest.mark.parametrize("smp", [1, 2])
def test_a_boot_programs_kill_all_spares_the_others(boot, smp):
    r = boot("run=killreach,kill run=killreach,wait", smp=smp, timeout=120, icount=True)
    w = result(r, "killreach_wait")
    k = result(r, "killreach_kill")
    assert w["lived"] == 1, r.tail()
    assert k["many"] == 0 and k["child_killed"] == 1, k
    assert k["reached"] == 0 and k["eperm"] >= 1, k
