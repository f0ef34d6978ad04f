"""A process's blocking operations past its bound and killed with them
(progs/posix/kopflood; kernel/kop.c): 1,100 threads in process-shared
condition waits (kernel futex waits: past MAXKOP_SPACE, 1,024, the
kernel refuses the kop with -EAGAIN and the condition waits again), woken
by one broadcast, so that most completions wait on their VP's done list
while its event queue is full; then a child killed with every thread
blocked, one that kills itself right after its broadcast (its runtime
had drained the done lists by then in every run looked at: the kill of
a VP with completions still owed is not reached for sure), and a whole
run again (after one unaudited whole run, so the audit counts no
one-time set-up of the measuring process). Under memcheck, in an
audited child: every waiter of the whole runs wakes, the killed ones
end by SIGKILL, no panic, every frame comes back. kthread's threads
are VPs (about 254 at -smp 1): 200 there. naive and det run threads
on classic VPs, whose futex wait blocks the VP whole: 1,100 would need
1,100 VPs.

The waiters past 1,024 loop on a refused wait: each turn yields its VP
(ulib/pthread/pshared.c fwait). Before that, on tutor and prio at -smp 2
(no time slices) they kept both VPs from main for 70-90 s of a quiet
host; the default timeout (60 s, not the 240 this took) fails that
again, against 1-3 s now."""
import pytest
from helpers import audit_passed, pkg_cases

PKGS = ["fifo", "prio", "tutor", "kthread"]


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS))
def test_kop_flood_done_lists_and_kills(boot, pkg, smp):
    nt = 200 if pkg == "kthread" else 1100
    r = boot(f"memcheck run=kopflood,pkg={pkg},vps=2,{nt}", smp=smp)
    audit_passed(r, "kopflood")
    assert f"kopflood: whole: {nt} threads, {nt} woke" in r.log, r.tail()
    assert r.log.count("killed: signal 9") == 2, r.tail()
