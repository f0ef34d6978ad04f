"""Open-file-description locks and deadlock cycles of more than two
processes (kernel/flock.c, ulib/libc/flock.c; progs/posix/ofdlock.c, run in
an audited child under memcheck on a disk): F_OFD_SETLK and POSIX locks
conflict both ways within one process, F_GETLK names an OFD owner as pid
-1, l_pid != 0 is EINVAL, a close of another descriptor keeps OFD locks;
two threads with their own opens conflict under OFD and not under POSIX,
and a thread's F_OFD_SETLKW waits until the other lets go; a fork's child
shares the OFD locks; an OFD lock goes at the open file's last close, and
one a child set outlives it until then, paid for by the parent that holds
the open file; a process that sets OFD locks, forks a child holding the
file and ends (or execs, keeping no descriptor of it) leaves the child
paying for them (INFO_LOCKS 0; an unlock gives it memory back; the exec's
image pays for none), and the child's close frees them; a chain of 4
generations, each forking the holder and ending, each trying to add
MAXLOCK_SPACE records, makes only MAXLOCK_SPACE in all, none unpaid
(before: 4 x MAXLOCK_SPACE, 3 x unpaid: one user could fill
MAXLOCK_ALL and deny locks to all); two children's 200 records on their
parent's open file are the parent's to pay once they end, past its 128,
so it may make no more (ENOLCK); cycles of 3 and 4
processes give EDEADLK to the process whose wait closes it (its waiters
seen queued in the kernel by count, not time) and the others their locks.
Every record and wait comes back and the disk is e2fsck clean. Before:
fcntl(F_OFD_*) was EINVAL, and a 3-process cycle deadlocked for good."""
import re

import pytest
from helpers import audit_passed, needs_e2fsprogs, program_image, PKGS_DET, pkg_cases

pytestmark = needs_e2fsprogs


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_ofd_locks_and_deadlock_cycles(boot, tmp_path, pkg, smp):
    """On det a thread blocked in the kernel keeps the one turn, so its
    wait on another thread of its process would never end (as for a
    pipe): the program leaves that wait out there (argument det)."""
    from test_ext2write import fsck_clean
    img = program_image(tmp_path, "ofdlock")
    r = boot(f"memcheck run=ofdlock,pkg={pkg}" + (",det" if pkg == "det" else ""),
             smp=smp, timeout=120, disk=img)
    audit_passed(r, "ofdlock")
    fsck_clean(img)
    m = re.search(r"ofdlock: (\d+) checks, (\d+) failures", r.log)
    assert m and int(m.group(2)) == 0 and int(m.group(1)) >= 60, r.tail()
    for how in ("exit", "exec"):
        assert (f"ofdlock: moved ({how}): set 1, parent ended 1, child pays 1, its unlock gave back "
                "memory 1, locks kept 1, freed at its close 1") in r.log, r.tail()
    assert "ofdlock: the exec's image pays for 0 records, 0 unpaid" in r.log, r.tail()
    assert ("ofdlock: chain of 4 generations: 128 records made (bound 128), 128 at most paid by one, "
            "0 unpaid at most") in r.log, r.tail()
    assert ("ofdlock: fan: the holder pays for 200 of its children's records, 0 unpaid, "
            "a new one refused 1") in r.log, r.tail()
    for n in (3, 4):
        assert f"ofdlock: a cycle of {n} processes: EDEADLK for the closer, {n - 1} others" in r.log, r.tail()
