"""A pipe another process holds (progs/posix/pipehold.c).

vp: on one VP, a thread reads a pipe a child holds while a sibling thread
counts 1,000 yields, and only then tells the child to write: the read
ends with the child's "go" after all 1,000 steps. naive's classic VP used
to block whole in the kernel for the read (steps_at_read 0: the child
wrote "to" once it gave up waiting); now its wait yields to the VP's other
threads while they can run (ulib/libc/pipe.c: vpwait, yield_other). fifo
and kthread beside it (an upcall VP; a thread that is a VP)."""
import pytest
from helpers import done, result


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", ["naive", "fifo", "kthread"])
def test_reader_does_not_stop_its_vp(boot, pkg, smp):
    r = boot(f"run=pipehold,pkg={pkg},vps=1,vp", smp=smp, timeout=120)
    res = result(r, "pipehold")
    assert res["failures"] == 0 and res["checks"] >= 6, r.tail()
    assert res["steps_at_read"] == res["steps"] == 1000, res
    done(r, 0)
