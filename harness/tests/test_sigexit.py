"""progs/posix/sigexit.c: a signal for the program (kill of its own pid)
that the library hands to a thread that does not block it runs exactly
once even when that thread ends before running anything: in the thread
as it exits, or later in main when main unblocks it, as Linux keeps such
a signal pending for the process. 500 rounds of create, block, kill,
join, unblock. Before, a signal posted to a thread as it exited was
dropped with the thread's slot (ulib/libc/signal.c): 1 to 2 of 200
rounds lost on fifo and prio at -smp 2, and the public suite's
pthread_create 14-1 hung in 3 runs of 5 on fifo with 2 VPs."""
import pytest
from helpers import result, self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_a_program_signal_is_not_lost_with_an_exiting_thread(boot, pkg, smp):
    r = self_test(boot, "sigexit", pkg, smp, 4)
    res = result(r, "sigexit")
    assert res["rounds"] == res["ran"] == 500, res
