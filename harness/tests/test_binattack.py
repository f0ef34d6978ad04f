"""Hostile calls on /bin/NAME, the boot module a path names when the file
system lacks it (kernel/binpath.c; progs/posix/binattack.c): stat, lstat,
spawn and exec with null, kernel, non-canonical and unmapped path
pointers, paths that run into an unmapped page, overlong and odd names,
stat buffers that are null, kernel, read-only, unmapped or cross into an
unmapped page; then, at -smp 2 too, a thread stats and spawns from a page
that another thread unmaps and maps again. Every call gives an error
number (never a kill or a panic), the legal calls work, and memory is
back exactly when the attacker ends (memcheck)."""
import pytest
from helpers import done, result, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread"]))
def test_binpath_survives_hostile_calls(boot, pkg, smp):
    r = boot(f"memcheck run=binattack,pkg={pkg},3000", smp=smp, timeout=180)
    res = result(r, "binattack")
    assert res["failures"] == 0 and res["checks"] >= 80 and res["pkg"] == pkg, r.tail()
    mem = result(r, "binattack.mem")
    assert mem["failures"] == 0 and mem["avail_lost"] == 0, mem
    done(r, 0)
