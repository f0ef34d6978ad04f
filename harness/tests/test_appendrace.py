"""Two processes append records to one file at once (progs/posix/
appendrace.c, issue 34) and every record is checked whole, over many
rounds: any bad record fails.

sep: each process opens the file with O_APPEND itself (confproc's
check: 100 appends of 100 bytes each, 1 KiB blocks), 40 rounds. An
append's first step cut its copy at the block of its open file's offset,
not of the end it appends at, which the other process had moved: the
copy ran past the 1 KiB block (over a neighbour in the cache's 4 KiB
buffer, or past the buffer's page: 'kfree: not a heap block' panics) and
the record's tail stayed zeros. Before the fix 15 of 50 boots of the ten
cases failed (1 to 23 bad records in 40 rounds; tutor at -smp 1 too, and
2 panics); after, 0 of 50.

shared: one O_APPEND descriptor opened before the fork; the parent
appends 8 records of 40,000 bytes, the child 3,200 of 100, on 4 KiB
blocks with a cache of 64 buffers (bcache=64), so the kernel often ends
a parent's append short at a wait for the disk, keeping the room for the
rest. ulib found that room with lseek(SEEK_CUR) on the descriptor's
offset, which the child shares and its appends move: the rest went after
a child's record and the room stayed zeros, or the file grew past its
size. Now file_write_where (63) gives the position of a short write.
Before, 12 of 20 boots failed (every package at -smp 2, prio at -smp 1
too; 1 to 6 bad rounds of 20); after, 0 of 30."""
import subprocess

import pytest
from harness import BUILD
from helpers import MKE2FS, done, needs_e2fsprogs, program_image, result, pkg_cases

pytestmark = needs_e2fsprogs

# mode: (rounds, parent's records, their size, the child's records' size, command-line words)
CASES = {"sep": (40, 100, 100, 100, ""), "shared": (20, 8, 40000, 100, "bcache=64 ")}


def image(tmp_path, mode):
    if mode == "sep":
        return program_image(tmp_path, "appendrace")
    tree = tmp_path / "tree"
    (tree / "bin").mkdir(parents=True)
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "4096", "-d", str(tree), str(img), "64M"],
                   check=True, capture_output=True)
    return img


@pytest.mark.parametrize("pkg,smp", pkg_cases())
@pytest.mark.parametrize("mode", list(CASES))
def test_appends_from_two_processes_land_whole(boot, tmp_path, mode, pkg, smp):
    rounds, n, size, csize, words = CASES[mode]
    r = boot(f"{words}run=appendrace,pkg={pkg},{mode},{rounds},{n},{size},{csize}", smp=smp, timeout=300,
             disk=image(tmp_path, mode))
    res = result(r, "appendrace")
    assert res["rounds"] == rounds and res["failed_rounds"] == 0 and res["pkg"] == pkg, res
    assert res["bad_records"] == 0 and res["bad_rounds"] == 0, (res, r.tail())
    done(r, 0)
