"""malloc at the space's memory quota (progs/posix/mallocoom.c, booted
with memquota=32): 1 MiB blocks, calloc, a growing realloc, 100-byte
blocks and setenv each go until they fail with ENOMEM (NULL or -1),
never a kill; freed memory is taken again (as many big blocks the
second time, as many small ones); on a thread of every package at -smp
1 and 2. malloc maps its memory at once (SYS_map, charged then), so the
quota shows as ENOMEM from the call, not as a fault at a touch."""
import pytest
from helpers import passed, PKGS_DET, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_malloc_returns_null_at_the_quota(boot, pkg, smp):
    r = boot(f"memcheck memquota=32 run=mallocoom,pkg={pkg},thread", smp=smp, timeout=120)
    res = passed(r, "mallocoom", at_least=13, pkg=pkg)
    assert res["big"] > 20 and res["big_again"] + 4 >= res["big"], res
