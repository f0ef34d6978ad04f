"""The page the first stat() of a process keeps (issue 34's note) is its
own stack's: ulib's stat puts a PATH_MAX path on the stack, and its first
call reaches a stack page not touched before (a demand-zero page, charged
to the space and freed with it). progs/posix/statpage.c: a fresh child's
first stat costs a page and its second none; a child that first made a
stack frame as deep gives 0 and 0, so the kernel keeps nothing."""
import subprocess

import pytest
from helpers import MKE2FS, needs_e2fsprogs, result, done

pytestmark = needs_e2fsprogs


@pytest.mark.parametrize("pkg", ["fifo", "kthread"])
def test_the_first_stats_page_is_the_stack(boot, tmp_path, pkg):
    tree = tmp_path / "tree"
    (tree / "bin").mkdir(parents=True)
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "4096", "-d", str(tree), str(img), "16M"],
                   check=True, capture_output=True)
    r = boot(f"run=statpage,pkg={pkg}", timeout=120, disk=img)
    res = result(r, "statpage")
    assert (res["plain_first"], res["plain_second"]) == (4096, 0), res
    assert (res["deep_first"], res["deep_second"]) == (0, 0), res
    done(r, 0)
