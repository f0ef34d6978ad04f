"""A kill that meets an exec is not lost (progs/posix/execkill.c): 500
times a child execs a spinning image while its parent sends it SIGKILL,
and it ends by SIGKILL every time. Before the fix (kernel/psig.c's send,
kernel/space.c's space_exec) a kill that took the old image just as the
exec ended it, or while the new one was not yet in its place, ended
nothing: the new image spun on, 1 to 5 kills in 300 lost at -smp 2 with
`jitter` (which stretches the two windows: shake() in sys_kill and
space_exec), and system's cancel (test_cpoint.py), which kills its child
and waits for it, hung under load. At -smp 1 the kernel runs the windows
whole (interrupts off): a check that nothing else changed."""
import pytest
from helpers import done, only

MODES = [("fifo", 2, True), ("prio", 2, True), ("kthread", 2, True), ("fifo", 1, False)]


@pytest.mark.parametrize("pkg,smp,shake", MODES,
                         ids=[f"{p}-{n}{'-jitter' if j else ''}" for p, n, j in MODES])
def test_kill_meeting_an_exec_ends_the_process(boot, pkg, smp, shake):
    jitter = "jitter " if shake else ""
    r = boot(f"{jitter}run=execkill,pkg={pkg}", smp=smp, timeout=240)
    res = only(r, "result", name="execkill")
    assert res["failures"] == 0 and res["lost"] == 0 and res["checks"] == 3, r.tail()
    done(r)


@pytest.mark.parametrize("pkg,smp,shake", MODES,
                         ids=[f"{p}-{n}{'-jitter' if j else ''}" for p, n, j in MODES])
def test_stop_meeting_an_exec_stops_the_process(boot, pkg, smp, shake):
    """The same rounds with SIGSTOP (`execkill stop`): waitpid(WUNTRACED)
    reports the child stopped every time, whichever image the stop found.
    Before (kernel/psig.c's deliver, kernel/space.c's space_exec), a stop
    that met the exec's hand-over did nothing and the new image ran on."""
    jitter = "jitter " if shake else ""
    r = boot(f"{jitter}run=execkill,pkg={pkg},stop", smp=smp, timeout=240)
    res = only(r, "result", name="execkill")
    assert res["failures"] == 0 and res["lost"] == 0 and res["checks"] == 3, r.tail()
    done(r)
