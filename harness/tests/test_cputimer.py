"""POSIX timers on CPU-time clocks, as Linux has them (progs/posix/cputimer.c,
ulib/libc/timer.c, cpuwatch.c), on every package and det, det=par, at -smp
1 and 2, under --icount (guest time follows instructions, not the host):
a process-clock and a thread-clock timer armed while threads compute fire
no earlier than the CPU time asked (the clock read in the handler) and
within BOUND_NS of CPU time of it; a thread's timer signals the process;
periodic overruns are the periods that ended by the take; a blocked
thread's timer does not fire while it is blocked; timer_delete stops it;
a fork's child has none; TIMER_MAX; EINVAL for what Linux refuses; and
clock_nanosleep on the process clock and on another thread's sleeps until
that much CPU time (one on a thread that exits ends, 0).
Before, timer_create on a CPU-time clock was EINVAL.

naive at -smp 2 under --icount hung in `process` before ulib/rt/rt_due.c
set a slice's timer no closer than twice what setting it costs (there
SYS_timer took 10-60 ms of the boot clock, longer than the 1 ms slice:
each slice cut the thread just switched in before it ran;
test_dueyield.py shows the shape on every package)."""
import pytest
from helpers import passed, pkg_cases, PKGS_DET

BOUND_NS = 1000 * 1000 * 1000    # cputimer's BOUND: CPU time a firing may be late by
CHECKS = 168                      # cputimer's CHECKs on a run that passes

CASES = pkg_cases(PKGS_DET) + [pytest.param("det,det=par", 2, id="par-2")]


@pytest.mark.parametrize("pkg,smp", CASES)
def test_timers_on_cpu_clocks(boot, pkg, smp):
    r = boot(f"run=cputimer,pkg={pkg}", smp=smp, icount=True, timeout=240)
    res = passed(r, "cputimer", CHECKS)
    assert 0 <= res["late_ns"] <= BOUND_NS, res
