"""Issue 13, classes 5 (lazy pages in syscalls) and 6 (SMAP): the kernel's
entry and user-copy paths. Every boot has `memcheck`, under which the
kernel panics if it is ever entered with EFLAGS.AC set."""
import pytest
from helpers import done, result

EFAULT, ENOENT, ETIMEDOUT = 14, 2, 110


@pytest.mark.parametrize("smp", [1, 2])
def test_ac_flag_cleared_on_entry(boot, smp):
    # User code sets AC and enters the kernel by timer interrupts, a page
    # fault, syscalls and signals from another VP. Without the entry
    # code's clac, the memcheck assertion panics ("entered the kernel
    # with EFLAGS.AC set"); that is how this test failed before the fix.
    r = boot("memcheck run=acflag", smp=smp)
    done(r, 0)
    res = result(r, "acflag")
    assert res["ac_kept"] and res["lazy_touched"] and res["vp"] == 1, res


@pytest.mark.parametrize("smp", [1, 2])
def test_syscalls_fill_lazy_pages(boot, smp):
    # Before the fix every one of these returned -EFAULT.
    r = boot("memcheck run=lazysys", smp=smp)
    done(r, 0)
    res = result(r, "lazysys")
    assert res["wait"] == 1 and res["wait_slow"] == 1 and res["status_ok"], res
    assert res["futex"] == -ETIMEDOUT and res["wake"] == 0, res
    assert res["spawn"] == -ENOENT, res
    # A read-only lazy region is still not writable by the kernel.
    assert res["ro_wait"] == -EFAULT and res["ro_zero"], res
