"""The RAM disk gives a freed block's frame back (kernel/ramdisk.c's
ram_discard, from ext2w.c's block frees through bcache_discard, which
drops the cache's buffer of the block first): progs/posix/ramfree.c on
every package at -smp 1 and 2, in a 256 MiB guest (a RAM disk of about
29 MiB). A file of half the disk written, fsync'd and unlinked 16 times
over (more bytes in all than the guest's memory): after each round the
disk's frames (INFO_RAMDISK 1, after a sync) are back to the base
exactly, and the free pool got every one; a file unlinked before any
sync writes nothing; ftruncate, O_TRUNC, an unlinked file held open,
the disk filled to ENOSPC, two threads writing and truncating one file
and two processes churning theirs: back to the base each time; blocks
freed and taken again read as they should (holes read zeros). Before
the change the frames stayed (`left` was the file's blocks each round)."""
import pytest
from helpers import done, result, pkg_cases

MIB = 1 << 20


def ramfree(boot, pkg, smp, words="", rounds=16, mem="256M"):
    r = boot(f"{words} run=ramfree,pkg={pkg},{rounds}", smp=smp, timeout=300, mem=mem)
    res = result(r, "ramfree")
    assert res["failures"] == 0 and res["checks"] >= 141 + 3 * rounds, r.tail()
    assert res["left"] == 0 and res["end"] == res["base"], res
    assert res["peak"] > res["base"] + res["file_blocks"], res
    assert res["free_back"] >= res["returned"] >= rounds * res["file_blocks"], res
    done(r)
    return res


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_deleted_files_give_the_ram_disks_frames_back(boot, pkg, smp):
    res = ramfree(boot, pkg, smp)
    assert res["written_mib"] * MIB > 256 * MIB, res


def test_freed_blocks_read_right_through_a_small_cache(boot):
    """bcache=64: the file's blocks go to and come back from the RAM disk
    itself, not the cache, so a block freed and taken again reads from
    its fresh (zero) state."""
    ramfree(boot, "fifo", 2, "bcache=64", rounds=2)


def test_ram_disk_frames_under_memcheck_and_the_race_shaker(boot):
    """A freed frame is poisoned (memcheck) and checked when taken again:
    nothing wrote it after its block was freed."""
    ramfree(boot, "kthread", 2, "memcheck jitter=5", rounds=2)
