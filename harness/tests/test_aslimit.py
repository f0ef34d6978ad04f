"""setrlimit(RLIMIT_AS) bounds the address space (progs/posix/aslimit.c,
ulib/rt/aspace.c): past the soft limit mmap fails with ENOMEM and malloc
returns NULL with errno ENOMEM, the program running on; an unmapped or
freed MiB is taken again; munmap of a range with holes and MAP_FIXED over
a mapping count only what was mapped; pthread_create finds no room for
a stack (EAGAIN); a forked child keeps the limit, and
as another user sets its soft limit up to the hard one but not above
(EINVAL) and may not raise the hard one (EPERM); the soft limit raised
back to the hard one maps 64 MiB again. On a thread of every package at
-smp 1 and 2. Before, the limit was only recorded: the 1 MiB mmaps went
on to the memory quota (the checks of their count failed). det=par's
threads malloc from its own heap (threadpkgs/det/heap.c), counted as it
hands the range out: before, 279 1-MiB mallocs under the 48 MiB limit."""
import pytest
from helpers import passed, PKGS_PAR, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_rlimit_as_bounds_mmap_and_malloc(boot, pkg, smp):
    r = boot(f"run=aslimit,pkg={pkg},thread", smp=smp, timeout=120)
    res = passed(r, "aslimit", at_least=70, pkg=pkg.split(",")[0])
    # The count is what mmap sees: 1 MiB maps past the use found, at
    # least the 16 MiB of room given, as many again and as many mallocs.
    assert 15 <= res["mmaps"] <= res["use_bound_mib"] + 16, res
    assert res["mmaps_again"] == res["mmaps"], res
    assert 14 <= res["mallocs"] <= res["use_bound_mib"] + 16, res


# VPs of the start (vps=N) and det=par's VP per thread, on every package.
ASLIMITVP_N = {"kthread": 0, "det": 1, "det,det=par": 1}


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_rlimit_as_lowered_first_keeps_every_vp(boot, pkg, smp, request):
    """A program that lowers RLIMIT_AS and fills its heap as its first act
    (progs/posix/aslimitvp.c) keeps every VP of its runtime: a VP's record
    and stack are taken when it is made (ulib/rt/rt_vp.c), before main
    runs. Before, a VP that first ran after that found malloc refused
    and ended the program ("naive: out of memory for VP 1", exit 70: CI's
    test_aslimit[naive-2] flake): under -icount with 16 VPs, naive, fifo,
    prio and tutor at -smp 1 and 2 and det=par (its VP per thread)."""
    if pkg == "det,det=par":
        # det=par's VP per thread takes its memory when it first runs
        # (ulib/rt/rt_vp.c add_vps: taken by its maker it came from the
        # maker's det arena, stale to the other VPs: test_detachloop), so
        # a limit lowered before the thread runs still loses it. Strict:
        # this fails the day it passes, so the note goes then.
        request.node.add_marker(pytest.mark.xfail(
            reason="det=par's late VPs take their memory when they first run", strict=True))
    n = ASLIMITVP_N.get(pkg, 16)
    r = boot(f"run=aslimitvp,pkg={pkg},vps={max(n, 1)},{n},4", smp=smp, icount=True,
             timeout=200)
    res = passed(r, "aslimitvp", at_least=12, pkg=pkg.split(",")[0])
    assert res["vps"] == n and res["threads"] == 4 and res["filled"] > 0, res
