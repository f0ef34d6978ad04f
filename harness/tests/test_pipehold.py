"""A pipe another process holds (progs/posix/pipehold.c).

vp: on one VP, a thread reads a pipe a child holds while a sibling thread
counts 1,000 yields, and only then tells the child to write: the read
ends with the child's "go" after all 1,000 steps. naive's classic VP used
to block whole in the kernel for the read (steps_at_read 0: the child
wrote "to" once it gave up waiting); now its wait yields to the VP's other
threads while they can run (ulib/libc/pipe.c: vpwait, yield_other). fifo
and kthread beside it (an upcall VP; a thread that is a VP).

charge: a space holding one end of a pipe whose other end is gone used to
hold half the pipe unpaid (each end paid half: up to 2 MiB per space).
Now the read end pays for the ring and each end for the header, and the
ring goes when the read end does (kernel/pipe.c: pipe_charge,
pipe_end_gone). Closing the read end of a pipe a child filled and left
gives back at least the ring's charge (INFO_MEM_CHARGED; 33,152 bytes
before, 66,048 now), and closing the read end of a pipe whose write end
stays open gives back the ring's 64 KiB (INFO_MEM_AVAIL; 0 before). The
body runs in a child (forkaudit.h): every byte back, avail_lost 0."""
import pytest
PIPE_CAP, PGSIZE = 65536, 4096
from helpers import done, result, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(["naive", "fifo", "kthread"]))
def test_reader_does_not_stop_its_vp(boot, pkg, smp):
    r = boot(f"run=pipehold,pkg={pkg},vps=1,vp", smp=smp, timeout=120)
    res = result(r, "pipehold")
    assert res["failures"] == 0 and res["checks"] >= 6, r.tail()
    assert res["steps_at_read"] == res["steps"] == 1000, res
    done(r, 0)


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread"]))
def test_one_end_left_pays_for_the_pipe(boot, pkg, smp):
    r = boot(f"memcheck run=pipehold,pkg={pkg},charge", smp=smp, timeout=120)
    res = result(r, "pipehold")
    assert res["failures"] == 0, r.tail()
    assert res["read_end_paid"] >= PIPE_CAP, res
    # the ring, and at most the closed file's heap page if it emptied
    assert PIPE_CAP <= res["ring_freed"] <= PIPE_CAP + PGSIZE, res
    assert res["avail_lost"] == 0, res
    done(r, 0)
