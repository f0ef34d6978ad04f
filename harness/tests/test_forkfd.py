"""A fork's child gets its parent's disk descriptors (kernel/sysfile.c:
file_fork, called by kernel/fork.c): the same open files, so the offset
is shared; a child's close leaves the parent's open; a file outlives the
parent's close in the child; 32 children (MAXCHILD) dup and read one
file at once, and the fork refused after them drops its references;
FD_CLOEXEC stays per descriptor
(progs/posix/forkfd.c). The bytes a child wrote through an inherited
descriptor are on the disk (e2fsck -fn clean, debugfs brings them back),
and every charge comes back (INFO_MEM_AVAIL, memcheck). posix_spawn of
/bin/forkfd passes a descriptor without FD_CLOEXEC on, and not one with it."""
import subprocess

import pytest
from helpers import done, result, DEBUGFS, needs_e2fsprogs, program_image
from test_ext2write import fsck_clean

pytestmark = needs_e2fsprogs


def image(tmp_path):
    return program_image(tmp_path, "forkfd", {"data": b"0123456789"})


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", ["fifo", "kthread"])
def test_a_forked_child_shares_its_parents_open_files(boot, tmp_path, pkg, smp):
    img = image(tmp_path)
    r = boot(f"memcheck run=forkfd,pkg={pkg}", smp=smp, timeout=120, disk=img)
    res = result(r, "forkfd")
    assert res["status"] == 0 and res["failures"] == 0, r.tail()
    assert res["avail_lost"] == 0, res
    done(r, 0)
    fsck_clean(img)
    out = tmp_path / "out"
    subprocess.run([DEBUGFS, "-R", f"dump /out {out}", str(img)], check=True, capture_output=True)
    assert out.read_bytes() == b"parent1\nchild\nparent2\n"
