"""Named semaphores have an owner and permission bits, as glibc's files
/dev/shm/sem.NAME (progs/posix/semperm.c, kernel/segname.c): as another
user, sem_open of root's 0600 name or of its 0666 one made under umask
022 is EACCES (with O_CREAT too; with O_EXCL EEXIST first), of its 0666
one under umask 0 works, sem_unlink of a name not its own is EACCES; a
name it makes with 0444 is closed to it as well (glibc opens O_RDWR) but
unlinks; root opens and unlinks them all. The open Posix suite's
sem_open 3-1 and sem_unlink 3-1 check the same. Every package, one and
two CPUs."""

import pytest
from helpers import PKGS_DET, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_named_semaphore_permissions(boot, pkg, smp):
    self_test(boot, "semperm", pkg, smp, at_least=10)
