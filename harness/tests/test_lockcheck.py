"""The lock-order checker (kernel/lockcheck.c, the `lockcheck` word, on
with `memcheck`): processes that fork, signal, stop and continue, pipe,
lock files (flock and OFD locks), pass messages and end, all at once in
one boot at -smp 1 and 2, take every kernel lock in the documented order
(kop.c: kop_lock, table_lock, a space's lock, VP events, run queues; the
file system's locks before the block cache's, before the RAM disk's,
before the frame allocator's). An inversion panics the first time both
orders run, even at -smp 1 (with 59ea0b0's fix undone, selfstop panicked
in under a second). The checker must also have seen the orders it
checks: its report at halt names them.

Off, the checker costs nothing: spin_lock and spin_unlock carry patch
sites the kernel turns into jumps only with the word (xbench's figures,
test_xwake, are those of a kernel without it). `lockcheck=selftest`
commits an inversion at boot through those patched sites, which must
panic naming both places."""
import pytest
from helpers import done

PROGS = ["selfstop,pkg=fifo,40", "psig,pkg=fifo", "stop,pkg=prio", "flock,pkg=fifo",
         "pipewake,pkg=fifo", "forkmany,pkg=tutor", "fsrace,pkg=fifo", "ofdlock,pkg=fifo",
         "mqx,pkg=fifo,fork"]


@pytest.mark.parametrize("smp", [1, 2])
def test_lock_order_holds_under_processes(boot, smp):
    r = boot("lockcheck " + " ".join(f"run={p}" for p in PROGS), smp=smp, timeout=300)
    assert not any("lockcheck: lock order" in l for l in r.lines), r.tail()
    done(r, 0)
    assert any(l.startswith("lockcheck: ") and l.endswith(" lock sites patched")
               for l in r.lines), r.tail()
    seen = [l for l in r.lines if l.startswith("lockcheck: orders seen")]
    assert len(seen) == 1, r.tail()
    for order in ["kop>spaces", "spaces>space", "space>pmm", "bcache>ram", "ext2w>bcache"]:
        assert f" {order}" in seen[0], (order, seen[0])


def test_inversion_is_caught(boot):
    r = boot("lockcheck=selftest run=hello", smp=1, timeout=60)
    p = [l for l in r.lines if "lockcheck: lock order inversion" in l]
    assert r.kind == "panic" and p, r.tail()
    assert "selftest_a taken while holding selftest_b" in p[0], p[0]
    assert "but selftest_b was taken while holding selftest_a" in p[0], p[0]
    assert "(lockcheck_patch+" in p[0] or "(selftest+" in p[0], p[0]


def test_off_without_the_word(boot):
    r = boot("run=hello", smp=1, timeout=60)
    done(r, 0)
    assert not any(l.startswith("lockcheck:") for l in r.lines), r.tail()
