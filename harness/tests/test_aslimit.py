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
