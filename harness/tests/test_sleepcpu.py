"""A program that only sleeps costs next to no processor time, with or
without a timer armed (progs/posix/sleepcpu.c: 300 ms sleeps alone,
beside a 10 ms setitimer, beside timer_create's and alarm's timer
threads waiting). On naive, a sleeper and a timer's service thread,
both in user-level timed waits on a classic VP (rt_block_until), each
took the other for work and yielded to it: the VP never blocked, and
the sleep cost its whole wall time (300 ms of 300). Under --icount, so
the processor time is the guest's own, not a host's stall of a vCPU;
with warp (sleep=off: its own timers only, no disk), so the sleeps, every
CPU idle, pass at once in host time (2.05 -> 0.59 s a boot of fifo-2
side by side); a VP that never blocks is no idle CPU, and its spinning
is guest time as before.
Process CPU time (CLOCK_PROCESS_CPUTIME_ID and getrusage) must stay
under a tenth of each phase's wall time; measured after the fix it is
under 2 ms of 300 on every package."""
import pytest
from helpers import PKGS_PAR, done, result, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_sleep_costs_no_cpu(boot, pkg, smp):
    r = boot(f"run=sleepcpu,pkg={pkg}", smp=smp, icount="warp", timeout=240)
    res = result(r, "sleepcpu")
    done(r, 0)
    assert res["ticks"] > 0, res
    for cpu, ru, wall in res["phases"]:
        assert wall >= 300000 and cpu * 10 < wall and ru * 10 < wall, res
