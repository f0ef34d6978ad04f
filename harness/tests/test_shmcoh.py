"""mmap(MAP_SHARED) of a file is one memory in every process mapping it
(kernel/fshare.c; progs/posix/shmcoh.c): a shm_open object mapped before
a fork by three processes, counted to exactly 3N under a spin lock in the
map and with atomics; a posix_spawn'd /bin/shmcoh that maps it by name
counts beside the parent; one process's pwrite and stores (without
msync) are seen in another's map and by its pread; a file two processes
map gets both their stores on the disk (msync by one, munmap by the
other; e2fsck -fn clean, debugfs dumps it); every frame comes back
(INFO_MEM_AVAIL, memcheck)."""
import subprocess

import pytest
from helpers import done, result, DEBUGFS, needs_e2fsprogs, program_image
from test_ext2write import fsck_clean

pytestmark = needs_e2fsprogs


def image(tmp_path):
    return program_image(tmp_path, "shmcoh")


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", ["fifo", "kthread"])
def test_shared_file_maps_are_one_memory_across_processes(boot, tmp_path, pkg, smp):
    img = image(tmp_path)
    r = boot(f"memcheck run=shmcoh,pkg={pkg}", smp=smp, timeout=180, disk=img)
    res = result(r, "shmcoh")
    assert res["status"] == 0 and res["failures"] == 0, r.tail()
    assert res["avail_lost"] == 0, res
    done(r, 0)
    fsck_clean(img)
    out = tmp_path / "out"
    subprocess.run([DEBUGFS, "-R", f"dump /out {out}", str(img)], check=True, capture_output=True)
    data = out.read_bytes()
    assert len(data) == 4096 and data[:5] == b"child" and data[16:22] == b"parent", data[:32]
