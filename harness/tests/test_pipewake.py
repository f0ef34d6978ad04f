"""Pipe waits between processes that wait for each other again and again
(progs/posix/pipewake.c): 30 rounds of a 200,000-byte stream parent ->
child in pieces of 1-9,000 bytes read in pieces of 1-5,000, and 200
round trips of 1-PIPE_BUF bytes, with the reads landing in pages a fork
left copy-on-write. Every byte arrives, every child exits 0, the run
ends.

Two bugs hung it (test_kpipe's hang): the kernel brought a copy-on-write
page in while holding the pipe's lock, which took kop_lock (cow.c's
futex_rekey, since gone: a private futex word is keyed by its address),
while the other process held kop_lock in sys_pipe_wait
and spun on the pipe's lock (both CPUs stopped, interrupts off); and a
reader was told "private" while the writer's process closed its end
(the table's charge gone, the hang-up not yet), so it waited at user
level for ever. Against the kernel before both fixes, fifo -smp 2 beside
two host busy loops hung in 3 of 3 runs (see the commits)."""

import pytest
from helpers import done, result

ROUNDS, BYTES, TRIPS = 30, 200000, 200


# The runs of one -smp share a boot, each its own process tree, told
# apart by the result's pkg: fifo, kthread and prio at -smp 2 took 3
# boots (16.7 s in the quiet CI), as one 5.9 s of QEMU CPU beside 6.2 for
# fifo's alone. The jitter boot stays apart (the word shakes the whole
# kernel: the others are to run unshaken too).
@pytest.mark.parametrize("pkgs,smp,shake", [
    (("fifo", "kthread", "prio"), 2, False), (("fifo",), 4, False), (("fifo",), 2, True),
], ids=["fifo+kthread+prio-2", "fifo-4", "fifo-2-jitter"])
def test_pipe_waits_between_processes(boot, pkgs, smp, shake):
    jitter = "jitter " if shake else ""
    runs = " ".join(f"run=pipewake,pkg={pkg},{ROUNDS},{BYTES},{TRIPS}" for pkg in pkgs)
    r = boot(jitter + runs, smp=smp, timeout=150)
    for pkg in pkgs:
        res = [e for e in r.events("result") if e.get("name") == "pipewake" and e.get("pkg") == pkg]
        assert len(res) == 1, f"{pkg}: {res}\n{r.tail()}"
        res = res[0]
        assert res["streams_ok"] == ROUNDS and res["pings_ok"] == ROUNDS, res
        assert res["failures"] == 0, f"{pkg}\n{r.tail()}"
    done(r, 0)


@pytest.mark.parametrize("pkg", ["fifo", "prio", "naive", "kthread"])
def test_poll_wakes_on_the_pipes_change(boot, pkg):
    """`pipewake poll 60 5` under --icount: 5 times, a process polls (POLLIN,
    no timeout) a pipe that its child writes after 60 ms. The poll waits
    in the kernel on that pipe (__pipe_poll_wait): one kernel wait per
    poll (the poller's VP's `blocks`), where it used to look again every
    1 ms (51 and 31 waits per poll on fifo and prio before; on naive and
    kthread, classic VPs, until vppoll: 288 and 273 waits for the 5 polls,
    5 after). A 30 ms poll of the pipe
    returns 0 after 30 ms, and a poll of it and of a pipe of the process's
    own that its other thread writes 10 ms later returns that one
    (`more`), on every package."""
    r = boot(f"run=pipewake,pkg={pkg},poll,60,5", icount=True, timeout=120)
    res = result(r, "pollwake")
    assert res["ok"] == 5 and res["more"] == 1, res
    assert res["waits"] <= 2 * 5, res
    done(r, 0)
