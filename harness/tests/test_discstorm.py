"""The RAM disk's discard path under a storm (progs/posix/discstorm.c;
kernel/ramdisk.c ram_discard through bcache_discard, ext2w.c's frees,
fshare.c): two processes create, write, truncate (leaving holes) and
unlink files of their own, and write and truncate the second half of a
file whose first half a third process maps MAP_SHARED, stamps and reads
back (through the map and pread) 200 times. Afterwards the mapper's
stamps are the file's, and once it is unlinked and synced the RAM disk
holds exactly its frames of before, statvfs's free blocks and inodes
are as before, and the available memory is back exactly. Every package
at -smp 1 and 2 under memcheck, and once with the
race shaker."""
import pytest
from helpers import passed, pkg_cases


def storm(boot, pkg, smp, words="memcheck"):
    r = boot(f"{words} run=discstorm,pkg={pkg},200", smp=smp, timeout=180)
    res = passed(r, "discstorm", at_least=10, rounds=200, pkg=pkg)
    assert res["end"] == res["base"] and res["avail_lost"] == 0, res


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_discard_storm_with_a_shared_mapping(boot, pkg, smp):
    storm(boot, pkg, smp)


def test_discard_storm_under_the_race_shaker(boot):
    storm(boot, "kthread", 2, "memcheck jitter=11")
