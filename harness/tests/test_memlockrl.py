"""RLIMIT_MEMLOCK as Linux applies it to a process that may not lock
memory (not root here; no CAP_IPC_LOCK there): mlock and mlockall EPERM
with a soft limit of 0, mlock past the limit ENOMEM, and after
mlockall(MCL_FUTURE) a mapping past it EAGAIN (anonymous or a shm
object's) until munlockall, not inherited by fork; munlock and root are
never limited (progs/posix/memlockrl.c, ulib/libc/mman.c). They were all
allowed: the Open POSIX suite's mlock 12-1 and mmap 18-1. The same
program passes under glibc on Linux. Package-independent library code,
but the children and set-ID calls run on every package, one and two
CPUs."""

import pytest
from helpers import PKGS_DET, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_memlock_limit_for_an_unprivileged_process(boot, pkg, smp):
    self_test(boot, "memlockrl", pkg, smp, at_least=7)
