"""Stopped processes and who may signal whom (kernel/pstop.c, psig.c,
space.c; progs/posix/stop.c) on every package at -smp 1 and 2: SIGSTOP
and SIGTSTP stop a child, every thread of it (kthread: each its own VP),
and its counts do not move while a third process runs to its end (a
count across a deterministic event, never a time); WUNTRACED and
WCONTINUED report once, SIGCHLD says CLD_STOPPED and CLD_CONTINUED,
SA_NOCLDSTOP silences it; a SIGTSTP handler or SIG_IGN overrides the
stop; SIGCONT's handler runs after the continue; raise(SIGSTOP) stops
the caller until another process continues it; a timer that expires
while stopped is delivered after the continue; SIGKILL ends a stopped
child; a sibling in the session may stop and continue another, one in
another session gets EPERM; an orphan's getppid is 1."""
import pytest
from helpers import self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_stop_continue_and_signal_rights(boot, pkg, smp):
    self_test(boot, "stop", pkg, smp, at_least=63, timeout=180)
