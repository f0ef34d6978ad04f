"""A blocked fifo thread does not stop its VP's other threads; a blocked
naive thread does (progs/bench/blockdiff.c, issue 4 item 6).

Each package runs on ONE VP with two threads: a counter, and a thread
that blocks in the kernel 3 times in sys_sleep and 3 times in the
simulated I/O device (5 ms each). The guest reports how many iterations
the counter made during each block. Under -icount guest time advances
only with guest instructions, so a host stall cannot make a block end
before the counter had its chance, nor starve it during one: the counts
are facts about the kernel and the package.

  fifo:  EV_BLOCKED lets fifo run the counter on the same VP meanwhile.
  naive: the VP is a classic one; the kernel blocks it whole, so the
         counter (on that VP, with no other) makes no progress at all.
"""
import pytest
from helpers import done, result

MIN_PROGRESS = 1000      # fifo's counter, per 5 ms block (measured: ~52,000)
KINDS = ("sleep", "io")


def run(boot, pkg, smp):
    r = boot(f"run=blockdiff,{pkg}", smp=smp, timeout=240, icount=True)
    res = result(r, "blockdiff")
    done(r, 0)
    assert res["package"] == pkg and res["vps"] == 1, res
    for kind in KINDS:
        assert res[kind]["ok"], res
        assert all(t >= res["latency_ns"] for t in res[kind]["elapsed_ns"]), res
        assert len(res[kind]["progress"]) == 3, res
    assert res["blocks"] == 6, res
    return res


@pytest.mark.parametrize("smp", [1, 2, 4])
def test_fifo_blocks_thread_naive_blocks_vp(boot, smp):
    fifo = run(boot, "fifo", smp)
    naive = run(boot, "naive", smp)
    for kind in KINDS:
        f, n = fifo[kind]["progress"], naive[kind]["progress"]
        # The difference itself: every fifo block let the counter run,
        # no naive block did.
        assert min(f) > MIN_PROGRESS, (kind, fifo, naive)
        assert max(n) == 0, (kind, fifo, naive)
    # How the kernel saw it: fifo's blocks came back as upcalls
    # (EV_BLOCKED/EV_UNBLOCKED); naive's VP blocked classically, no upcall.
    # (naive's time slice -- the counter waits -- is a timer whose
    # interrupt, a classic VP's, the kernel counts with upcalls: it may
    # come at a block's return, at most once per block, and turns nobody
    # out there -- progress 0 above -- as the slice is CPU time, which a
    # VP blocked whole does not spend: ulib/rt/rt_due.c.)
    assert fifo["upcalls"] > 0 and fifo["unblocks"] == 6, fifo
    assert fifo["interrupts"] == 0, fifo
    assert naive["unblocks"] == 0, naive
    assert naive["upcalls"] == naive["interrupts"] <= naive["blocks"], naive


@pytest.mark.parametrize("smp", [1, 4])
def test_tutor_blocks_only_the_thread(boot, smp):
    # The tutorial's package is first-class too: the conformance suite
    # never blocks in the kernel, this does (EV_BLOCKED/EV_UNBLOCKED).
    tutor = run(boot, "tutor", smp)
    for kind in KINDS:
        assert min(tutor[kind]["progress"]) > MIN_PROGRESS, (kind, tutor)
    assert tutor["upcalls"] > 0 and tutor["unblocks"] == 6, tutor
