"""System V semaphore sets and message queues (<sys/sem.h>, <sys/msg.h>,
ulib/libc/sysvsem.c and sysvmsg.c, progs/posix/sysvipcx.c), between a parent and forked children: SETVAL/SETALL/GETVAL/
GETALL/GETPID/IPC_STAT; a child waiting to take more than is there
(GETNCNT) woken by posts, one waiting for zero (GETZCNT) woken as the
count drains; all-or-none operations; IPC_NOWAIT's EAGAIN; SEMVMX's
ERANGE; semtimedop's timeout; SEM_UNDO undone when its process exits and
when it is killed; a handled signal's EINTR; IPC_RMID waking two waiters
with EIDRM; a keyed set (ENOENT, EEXIST, EINVAL for more semaphores,
EACCES for another user). Message queues: receives by type (0, >0,
<0), E2BIG and MSG_NOERROR, ENOMSG, EINVAL for MSGMAX and type 0; a full
queue (MSGMNB bytes): EAGAIN, a child's send waiting until the parent
receives; a child's receive of one type waiting past another; IPC_RMID
ending a child's wait with EIDRM (nothing shows a queue's waiters, so a
round whose removal came before the wait, EINVAL, is done again with a
longer pause, up to 5); a keyed queue. The same program passes under
glibc on Linux (86 checks). Before, ulib had no <sys/sem.h> or
<sys/msg.h> (the program did not build). On every package and det=par at one and
two CPUs (it forks)."""
import pytest
from helpers import PKGS_PAR, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_sysv_sem_and_msg(boot, pkg, smp):
    self_test(boot, "sysvipcx", pkg, smp, at_least=86, checks=86)
