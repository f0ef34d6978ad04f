"""Memory locking as an option honestly met (progs/posix/mlockx.c,
ulib/libc/mlock.c): no page leaves memory here, so _POSIX_MEMLOCK and
_POSIX_MEMLOCK_RANGE are 200809L (sysconf too), and which ranges are
locked is kept as Linux keeps it: msync(MS_INVALIDATE) is EBUSY on a
page mlock'd, on any after mlockall(MCL_CURRENT), on a mapping made after
MCL_FUTURE; not after munlock, munlockall, or munmap and a new mapping
there, nor in a fork's child; RLIMIT_MEMLOCK counts what is locked in all
for a process that is not root (ENOMEM past it, a range locked twice
counted once; mlockall(MCL_CURRENT) ENOMEM when the whole process is past
it). Before, msync succeeded on locked pages (the Open POSIX suite's
mlockall 3-6 and 3-7), each mlock counted alone, and _POSIX_MEMLOCK was
undefined (munlockall 5-1 UNSUPPORTED). Library code, but the children
and set-ID calls run on every package at one and two CPUs."""
import pytest
from helpers import PKGS_DET, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_locked_ranges_are_kept(boot, pkg, smp):
    self_test(boot, "mlockx", pkg, smp, at_least=23)
