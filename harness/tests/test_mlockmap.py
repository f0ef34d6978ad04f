"""mlock and munlock answer ENOMEM for a range not all mapped, as POSIX
requires and Linux does (progs/posix/mlockmap.c; SYS_mapped,
kernel/protect.c): a hole munmap made, a range past a mapping's end or
past the program's, a page 0 that an unaligned address with no length
still names; mapped ranges (heap, stack, private and shared anonymous
mappings) lock wherever they start, and a page count that wraps is none
(Linux's arithmetic). Nothing is locked: no page ever leaves memory. The
same program passes on Linux 6.1 (harness linux). The open POSIX suite's
mlock 8-1 asks the same. Every package, one and two CPUs."""

import pytest
from helpers import PKGS_DET, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_mlock_of_an_unmapped_range_is_enomem(boot, pkg, smp):
    self_test(boot, "mlockmap", pkg, smp, at_least=18)
