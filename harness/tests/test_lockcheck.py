"""The lock-order checker (kernel/lockcheck.c, the `lockcheck` word, on
with `memcheck`): processes that fork, signal, stop and continue, pipe,
lock files and end, all at once in one boot at -smp 1 and 2, take every
kernel lock in the documented order (kop.c: kop_lock, table_lock, a
space's lock, VP events, run queues; the file system's locks before the
block cache's, before the RAM disk's, before the frame allocator's). An
inversion panics the first time both orders run, even at -smp 1 (with
59ea0b0's fix undone, selfstop panicked in under a second). The checker
must also have seen the orders it checks: its report at halt names
them."""
import pytest
from helpers import done

PROGS = ["selfstop,40,pkg=fifo", "psig,pkg=fifo", "stop,pkg=prio", "flock,pkg=fifo",
         "pipewake,pkg=fifo", "forkmany,pkg=tutor", "fsrace,pkg=fifo"]


@pytest.mark.parametrize("smp", [1, 2])
def test_lock_order_holds_under_processes(boot, smp):
    r = boot("lockcheck " + " ".join(f"run={p}" for p in PROGS), smp=smp, timeout=300)
    assert not any("lockcheck: lock order" in l for l in r.lines), r.tail()
    done(r, 0)
    seen = [l for l in r.lines if l.startswith("lockcheck: orders seen")]
    assert len(seen) == 1, r.tail()
    for order in ["kop>spaces", "spaces>space", "space>pmm", "bcache>ram", "ext2w>bcache"]:
        assert f" {order}" in seen[0], (order, seen[0])
