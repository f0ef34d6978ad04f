"""Memory and synchronization shared between processes (progs/posix/pshm.c):
MAP_SHARED | MAP_ANONYMOUS memory stays shared across fork (a shared
segment: ulib/libc/mshared.c); process-shared mutex, condition, barrier,
read-write lock and semaphore in it work between parent and children
(ulib/pthread/pshared.c: kernel futexes keyed by segment and offset), 4
children x 3,000 increments under the mutex give an exact total;
mprotect works on it, a part of it cannot be unmapped, a private mapping
stays private; a named semaphore made by the parent after the fork is
opened and posted by the child, and one by a posix_spawn'd program
(/bin/pshm on the disk) that shares nothing with the parent
(kernel/segname.c). Every package, one and two CPUs; every frame back
once all have ended (INFO_MEM_AVAIL, memcheck)."""

import pytest
from helpers import audit_passed, needs_e2fsprogs, process_run, pkg_cases

pytestmark = needs_e2fsprogs


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "prio", "kthread"]))
def test_processes_share_memory_and_synchronize(boot, tmp_path, pkg, smp):
    r, _ = process_run(boot, tmp_path, "pshm", pkg, smp)
    assert audit_passed(r, "pshm")["spawned"] == 1, r.tail()
