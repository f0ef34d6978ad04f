"""System V shared memory (<sys/shm.h>, ulib/libc/sysvshm.c, progs/posix/
sysvshmx.c): ftok; a private segment written, described by IPC_STAT and
shared with a fork's child (two attachments there, one again after its
shmdt; one again after a child that exits attached: before, 3); a keyed segment made once (EEXIST), found by key (EINVAL for a
larger size) from a child, attached read only, refused for writing to
another user (EACCES at shmget and shmat, as Linux); SHM_RND; IPC_SET's mode;
IPC_RMID (the key gone at once, the id until the last shmdt, as Linux).
The same program passes under glibc on Linux (41 checks). Before, ulib
had no <sys/shm.h> (the Open POSIX suite's sys/shm_h tests did not
build). On every package at one and two CPUs (it forks)."""
import pytest
from helpers import PKGS_DET, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_sysv_shm(boot, pkg, smp):
    self_test(boot, "sysvshmx", pkg, smp, at_least=41, checks=41)
