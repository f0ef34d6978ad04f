"""A private mapping of a file (or of a shm_open object) starts from the
file as every process sees it, including stores made through another
mapping's MAP_SHARED page and not yet written back, in the same process
and in a forked child, before and after msync; once written, the private
page keeps its own bytes (progs/posix/privsnap.c). The private copy was
read from the block cache alone (kernel/fmap.c's fill), so it missed
them: the Open POSIX suite's mmap 7-4 and shm_open 1-1. The same program
passes under glibc on Linux. Every package, det and det=par, one and two
CPUs."""

import pytest
from helpers import PKGS_PAR, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_private_map_sees_unwritten_shared_stores(boot, pkg, smp):
    self_test(boot, "privsnap", pkg, smp, at_least=49)
