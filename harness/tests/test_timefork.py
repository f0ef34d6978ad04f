"""Timers across fork and exec (progs/posix/timefork.c; ulib/libc/timer.c,
itimer.c, kernel/psigexec.c), on every package at -smp 1 and 2. POSIX: a fork's child
inherits none of its parent's alarm, setitimer or timer_create timers.
The parent arms alarm, ITIMER_VIRTUAL and a timer_create timer for 100 s;
in the child alarm(0) is 0, getitimer says both disarmed, the parent's
timer id is EINVAL and nothing is pending, and what the child arms itself
fires (ITIMER_REAL, a timer of its own, ITIMER_VIRTUAL), each taken by
sigwaitinfo; the parent's still run. Before: the child's getitimer,
alarm(0) and timer_gettime showed the parent's timers (4 checks failed)
and its own arming never fired (the timer thread it woke was the
parent's copy): a hang.

exec: POSIX keeps alarm's time left (ITIMER_REAL, with its interval, as
Linux) and deletes timer_create timers. A child arms ITIMER_REAL for 100 s
every 50 s and a timer, then execs /bin/timefork: getitimer there says
90-100 s every 50 s, alarm(0) too, the timer's id is EINVAL; another
child's 50 ms ITIMER_REAL fires in its new image (sigwaitinfo). Before:
the new image had no alarm (getitimer 0 every 0, alarm(0) 0)."""
import pytest
from helpers import needs_e2fsprogs, passed, program_image, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_a_forks_child_has_no_timers_of_its_parent(boot, pkg, smp):
    r = boot(f"run=timefork,pkg={pkg},fork", smp=smp, timeout=60)
    passed(r, "timefork", 9, area="fork")


@needs_e2fsprogs
@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_exec_keeps_the_alarm_and_drops_timers(boot, tmp_path, pkg, smp):
    r = boot(f"run=timefork,pkg={pkg},exec,{pkg}", smp=smp, timeout=60,
             disk=program_image(tmp_path, "timefork"))
    passed(r, "timefork", 4, area="exec")
