"""Advisory file locks between processes (kernel/flock.c, ulib/libc/flock.c;
progs/posix/flock.c, run in an audited child under memcheck on a disk):
F_SETLK's conflict (EAGAIN) and F_GETLK's pid and range; two processes
adding to a number in a file under F_SETLKW end at 2N; a waiting F_SETLKW
and flock get the lock only after the holder let go; ranges split and
merge (INFO_LOCKS counts the records); closing another descriptor of the
file drops the process's locks; a fork's child holds none; a two-process
deadlock is EDEADLK for exactly one; a handler ends F_SETLKW with EINTR;
flock is the open file's and apart from fcntl's; lockf; MAXLOCK_SPACE
records then ENOLCK, whether by many locks or by splitting one, and
MAXLOCK_ALL in the kernel (32 processes of 128), then ENOLCK; an exec keeps
the locks on the files it keeps; bad
requests refused. Every record and wait comes back (avail_lost 0, no lock
left in the kernel), and the disk is e2fsck clean. Before the locks,
fcntl(F_SETLK) was EINVAL and flock, lockf, <sys/file.h> did not exist."""
import re

import pytest
from helpers import audited_disk_boot, needs_e2fsprogs, pkg_cases

pytestmark = needs_e2fsprogs


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_file_locks_between_processes(boot, tmp_path, pkg, smp):
    r, _ = audited_disk_boot(boot, tmp_path, "flock", pkg, smp, 180)
    m = re.search(r"flock: (\d+) checks, (\d+) failures", r.log)
    assert m and int(m.group(2)) == 0 and int(m.group(1)) >= 250, r.tail()
    assert "flock: counter 400 of 400" in r.log, r.tail()
    assert "flock: 128 records, then ENOLCK" in r.log, r.tail()
    assert "flock: 4096 locks in all, then ENOLCK" in r.log, r.tail()
