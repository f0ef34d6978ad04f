"""Process groups, sessions and kill to many processes (kernel/pgrp.c,
ulib/libc/sigxsi.c and signal.c): progs/posix/pgrp.c on fifo, kthread and
prio at -smp 1 and 2 (setpgid from the parent and the child, kill(-pg),
kill(0) with the caller's own handler, kill(-1) sparing the caller and
then ESRCH, ESRCH for a pid that does not exist, a sibling in the
session allowed and EPERM once it called setsid, setsid's rules)."""
import pytest
from helpers import self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread", "prio"]))
def test_process_groups_and_kill(boot, pkg, smp):
    self_test(boot, "pgrp", pkg, smp, at_least=28)
