"""Without a disk, every program has a file system: the RAM disk
(kernel/ramdisk.c) with a fresh ext2 made in the kernel (kernel/mkfs.c),
through the same block cache and ext2 code as a real disk. progs/posix/ramfs.c:
/tmp and /dev/shm are 1777, statvfs gives the RAM disk's size, mkstemp +
write + read + mmap, shm_open + ftruncate + mmap shared between a parent
and its forked child, mkdir/rename/unlink/rmdir, and filling it gives
ENOSPC with the system still running (a file written after), on every
package at -smp 1 and 2. The formatted file system, with files the kernel
wrote on it, read back block by block through SYS_disk, is e2fsck-clean.
`noramdisk` keeps the old no-disk behaviour (test_tmpfiles.py)."""
import shutil
import subprocess

import pytest
from helpers import done, result, needs_e2fsprogs, pkg_cases

E2FSCK = shutil.which("e2fsck") or "/usr/sbin/e2fsck"
DEBUGFS = shutil.which("debugfs") or "/usr/sbin/debugfs"


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_a_program_without_a_disk_has_a_writable_file_system(boot, pkg, smp):
    r = boot(f"run=ramfs,pkg={pkg}", smp=smp, timeout=240, mem="128M")
    res = result(r, "ramfs")
    assert res["failures"] == 0 and res["checks"] == 35, r.tail()
    assert res["blocks"] == res["statvfs_blocks"] > 1024, res
    done(r)


def test_the_ram_disk_is_an_eighth_of_memory_at_most_64_mib(boot):
    r = boot("run=ramfs", smp=2, timeout=300)
    res = result(r, "ramfs")
    assert res["failures"] == 0, r.tail()
    mem = r.events("boot")[0]["mem_mib"] << 20
    assert 4096 * res["blocks"] <= min(64 << 20, mem // 8), res
    assert 4096 * res["blocks"] > mem // 10, res
    done(r)


@needs_e2fsprogs
def test_the_formatted_ram_disk_is_e2fsck_clean(boot, tmp_path):
    r = boot("rawdisk run=ramfs,dump", smp=1, timeout=120, mem="128M")
    res = result(r, "ramfs")
    assert res["failures"] == 0 and res["shown"] > 8, r.tail()
    done(r)
    img = tmp_path / "ram.img"
    with open(img, "wb") as f:
        f.truncate(4096 * res["blocks"])
        n = 0
        for line in r.lines:
            if line.startswith("ramblk "):
                _, blk, hx = line.split()
                f.seek(4096 * int(blk))
                f.write(bytes.fromhex(hx))
                n += 1
    assert n == res["shown"]
    p = subprocess.run([E2FSCK, "-fn", str(img)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    p = subprocess.run([DEBUGFS, "-R", "ls -l /tmp/sub", str(img)], capture_output=True, text=True)
    assert "file" in p.stdout and "65536" in p.stdout, p.stdout
    p = subprocess.run([DEBUGFS, "-R", "stat /dev/shm", str(img)], capture_output=True, text=True)
    assert "Mode:  01777" in p.stdout, p.stdout
