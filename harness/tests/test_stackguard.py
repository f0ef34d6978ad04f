"""progs/posix/stackguard.c: a POSIX thread whose attributes ask for a
guard (a page, the default as in glibc) has an unmapped page below its
stack even when the stack is small (PTHREAD_STACK_MIN, 64 KiB), so a
thread that runs past its stack's bottom is killed by SIGSEGV, as the
public suite's pthread_create 1-5 expects (its forked child overflows a
PTHREAD_STACK_MIN stack with a page of guard). Before, a stack of up to
64 KiB was a malloc block: the overflow went on into the heap and the
child exited 0 (fifo and prio at -smp 2). A thread using a quarter of
such a stack still exits 0, and guarded small stacks are created and
joined again and again (the packages pool them by size and guard)."""
import pytest
from helpers import self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_a_small_stack_with_a_guard_faults_below(boot, pkg, smp):
    self_test(boot, "stackguard", pkg, smp, 4)
