"""progs/posix/oncefork.c: a fork while another thread is inside a
pthread_once routine. The child (which has not got that thread) runs the
routine itself on its own pthread_once of the object, once, also when
two of its threads call it together and in a grandchild; an object done
before the fork stays done; the parent's runner finishes as before. As
glibc on Linux (a fork generation in the once word: ulib/pthread/pthread.c
once_gen). Before, the child's pthread_once waited forever (its alarm
killed it: 2 failures of 9)."""
import pytest
from helpers import passed, PKGS_DET, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_once_running_at_fork_runs_in_child(boot, pkg, smp):
    r = boot(f"run=oncefork,pkg={pkg}", smp=smp, timeout=120)
    passed(r, "oncefork", 9)
