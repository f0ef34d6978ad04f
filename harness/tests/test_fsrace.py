"""Processes on two CPUs race the orphans and the pipe's copy retry
(progs/posix/fsrace.c, issue 34): 4 workers x 200 rounds, each round an
orphan (a shared map stored to, a forked holder, unlink/munmap/close and
the holder's _exit or kill in every order) and 3 pages through a pipe
from an untouched file map into copy-on-write pages or an unread private
map (copyin_locked/copyout_locked fail, the lock is let go, user_prefault,
again). Every byte checked, 1,600 orphans made and none left, memory back
exactly under memcheck (fork_audit), the image e2fsck -fn clean with an
empty orphan list.

It found a bug: a dirty shared page's write-back (fshare_flush) runs
without the file system's lock, and another CPU could free the inode
meanwhile (an orphan reaped, an unlink); a new file given that inode
number then got the old file's page written over its own (a copy round's
writer read another worker's file: 'c' and its pattern). fifo -smp 2
before the fix: 3 of 10 runs failed on main (caf5d59), 8 of 18 on this
branch's earlier commits; after it, 0 of 8 (and these)."""
import pytest
from helpers import audit_passed, MKE2FS, needs_e2fsprogs
from test_ext2write import fsck_clean
from test_orphan import first_orphan
import subprocess

pytestmark = needs_e2fsprogs

ROUNDS, WORKERS = 200, 4


@pytest.mark.parametrize("pkg,shake", [("fifo", False), ("kthread", False), ("fifo", True)],
                         ids=["fifo-2", "kthread-2", "fifo-2-jitter"])
def test_orphans_and_pipe_copies_race_across_cpus(boot, tmp_path, pkg, shake):
    tree = tmp_path / "tree"
    for d in ("bin", "tmp"):
        (tree / d).mkdir(parents=True)
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "4096", "-d", str(tree), str(img), "64M"],
                   check=True, capture_output=True)
    jitter = "jitter " if shake else ""
    r = boot(f"memcheck {jitter}run=fsrace,pkg={pkg},{ROUNDS}", smp=2, timeout=300, disk=img)
    res = audit_passed(r, "fsrace")
    assert res["made"] == WORKERS * ROUNDS * 2 and res["now"] == 0 and res["pkg"] == pkg, res
    fsck_clean(img)
    assert first_orphan(img) == 0
