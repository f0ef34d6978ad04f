"""progs/posix/spinfault.c: a holder of ulib's spin lock (<animart/spin.h>)
blocks in the kernel (a page that comes 3 ms late) while 2n+1 threads
wait for the lock. Before, a waiter kept time slices off itself (crit)
and never yielded on an upcall VP, so the holder, runnable again, sat in
a run queue behind it for good: fifo, prio and tutor hung at -smp 1 and
2 every time (the watchdog fired); naive, kthread and det passed. Now a
waiter on an upcall VP yields its thread every 4,096 pauses (spin.c).
The same shape hung test_forklock now and then (a fork preempted in the
kernel's copy, its thread queued behind waiters): rt_upcall now resumes
a thread preempted inside a spin lock at once. Not det=par: the program
shares plain words between threads, which det=par's views keep apart."""
import pytest
from harness import qemu
from helpers import PKGS_DET, done, passed, pkg_cases

TIMEOUT, WATCHDOG = 60, 30       # s (host), s of guest time, both * load


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_holder_blocked_in_kernel(boot, pkg, smp):
    wd = int(WATCHDOG * qemu.host_slowdown())
    r = boot(f"watchdog={wd} run=spinfault,pkg={pkg}", smp=smp, timeout=TIMEOUT)
    res = passed(r, "spinfault", at_least=8)
    assert res["got"] == res["rounds"] * (2 * smp + 1), res
    done(r, 0)
