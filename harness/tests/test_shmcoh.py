"""mmap(MAP_SHARED) of a file is one memory in every process mapping it
(kernel/fshare.c; progs/posix/shmcoh.c): a shm_open object mapped before
a fork by three processes, counted to exactly 3N under a spin lock in the
map and with atomics; a posix_spawn'd /bin/shmcoh that maps it by name
counts beside the parent; one process's pwrite and stores (without
msync) are seen in another's map and by its pread; a file two processes
map gets both their stores on the disk (msync by one, munmap by the
other; e2fsck -fn clean, debugfs dumps it); every frame comes back
(INFO_MEM_AVAIL, memcheck)."""
import pytest
from helpers import audited_disk_run, needs_e2fsprogs, pkg_cases

pytestmark = needs_e2fsprogs


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread"]))
def test_shared_file_maps_are_one_memory_across_processes(boot, tmp_path, pkg, smp):
    data = audited_disk_run(boot, tmp_path, "shmcoh", pkg, smp, 180)
    assert len(data) == 4096 and data[:5] == b"child" and data[16:22] == b"parent", data[:32]
