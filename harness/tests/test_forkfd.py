"""A fork's child gets its parent's disk descriptors (kernel/sysfile.c:
file_fork, called by kernel/fork.c): the same open files, so the offset
is shared; a child's close leaves the parent's open; a file outlives the
parent's close in the child; 128 children (MAXCHILD) dup and read one
file at once, and the fork refused after them drops its references;
FD_CLOEXEC stays per descriptor
(progs/posix/forkfd.c). The bytes a child wrote through an inherited
descriptor are on the disk (e2fsck -fn clean, debugfs brings them back),
and every charge comes back (INFO_MEM_AVAIL, memcheck). posix_spawn of
/bin/forkfd passes a descriptor without FD_CLOEXEC on, and not one with it."""
import pytest
from helpers import audited_disk_run, needs_e2fsprogs, pkg_cases

pytestmark = needs_e2fsprogs


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread"]))
def test_a_forked_child_shares_its_parents_open_files(boot, tmp_path, pkg, smp):
    out = audited_disk_run(boot, tmp_path, "forkfd", pkg, smp, 120, {"data": b"0123456789"})
    assert out == b"parent1\nchild\nparent2\n"
