"""malloc's per-VP caches under threads of every package (progs/tests/mallocstress.c):
16 threads on 4 VPs at -smp 2, preemption on (2 ms quanta), allocating,
checking and freeing 400,000 blocks, many of them freed on another VP than
they came from. Every block's contents must survive, and the caches must
keep the central lists out of most operations: each refill or drain is one
lock round trip for a batch, and there must be fewer than one per ten
small mallocs and frees (about one per 80 in the runs we watched). Without
the caches every small operation takes the class lock; without the
disabled-flag guard, the fifo run aborts on a corrupted free list or
faults (3 of 3 runs)."""
import pytest
from helpers import PACKAGES, done, result

PKGS = [p for p in ("fifo", "kthread", "naive") if p in PACKAGES]
OPS = 400000


@pytest.mark.parametrize("pkg", PKGS)
def test_malloc_stress(boot, pkg):
    r = boot(f"quantum=2 run=mallocstress,{pkg},4,16,{OPS}", smp=2, timeout=120)
    res = result(r, "mallocstress")
    assert res["bad"] == 0, r.tail()
    assert (res["package"], res["threads"], res["ops"]) == (pkg, 16, OPS), res
    assert res["small_ops"] > OPS * 0.9, res
    assert res["refills"] + res["drains"] < res["small_ops"] / 10, res
    done(r, 0)
