"""Cross-space wake-ups routed at user level (issue 15; ulib/rt/xwait.c,
kernel/segwake.c, progs/bench/xbench.c), under icount at -smp 1, where
the figures are deterministic guest instruction counts measured side by
side in one run.

- a waiter of an upcall package on <animart/xsync.h> parks at user level, so the
  same-space xsem signal-wait costs close to <animart/sync.h>'s usem one (it was
  7.4x with every wait in the kernel);
- the cross-space signal-wait and mutex hand-off stay below 5.5x the
  same-space figures (a regression guard: with every wait in the kernel
  fifo's signal-wait was 3,469 instructions, then 2,254 at user level,
  then about 1,165, now about 1,090 (2.78x); the mutex hand-off, whose
  xcond_signal does not hand off, 3.5x);
- the issue's target, cross-space within 3x of same-space, is met: a
  poster hands its CPU to the VP it woke (SEGWAKE_YIELD, a directed
  yield), so a ping-pong costs one switch between spaces per hand-off
  instead of a post, a block and an idle on each side.
"""
import pytest
from helpers import done, result


def figures(boot, pkg):
    r = boot(f"run=xbench,{pkg}", smp=1, icount=True, timeout=180)
    done(r, 0)
    return {e["name"]: e["value"] for e in r.events("result")}


@pytest.mark.parametrize("pkg", ["fifo", "prio", "tutor"])
def test_user_level_waits(boot, pkg):
    f = figures(boot, pkg)
    usem, same, xs = (f[f"{pkg}.usem_signal_wait"], f[f"same.{pkg}.signal_wait"],
                      f[f"xspace.{pkg}.signal_wait"])
    print(f"{pkg}: usem {usem:.0f}, same-space xsem {same:.0f}, cross-space {xs:.0f} "
          f"({xs / same:.2f}x), hand-off {f[f'same.{pkg}.mutex_handoff']:.0f} / "
          f"{f[f'xspace.{pkg}.mutex_handoff']:.0f}")
    assert same <= 1.5 * usem, f
    assert xs <= 5.5 * same, f
    assert f[f"xspace.{pkg}.mutex_handoff"] <= 5.5 * f[f"same.{pkg}.mutex_handoff"], f


def test_cross_space_target(boot):
    """Issue 15's target: fifo's cross-space signal-wait within 3x of its
    same-space one (the poster hands its CPU to the woken VP,
    SEGWAKE_YIELD), both measured in one boot."""
    f = figures(boot, "fifo")
    xs, same = f["xspace.fifo.signal_wait"], f["same.fifo.signal_wait"]
    print(f"fifo: cross-space {xs:.0f}, same-space {same:.0f} ({xs / same:.2f}x)")
    assert xs <= 3 * same, f


def test_directed_yield_is_fair(boot):
    """Two spaces passing the CPU back and forth with SEGWAKE_YIELD as
    fast as they can (progs/tests/yieldpair.c) beside a CPU hog, on one
    CPU for 300 ms of guest time: the kernel lets a woken VP run out of
    turn only within a quarter quantum of the least-served space, so the
    hog keeps about its third (measured: 100 ms of 300; with no bound the
    pair starved it to 10 ms)."""
    r = boot("run=yieldpair,fifo,300 run=spin,300", smp=1, icount=True, timeout=180)
    done(r, 0)
    pair, spin = result(r, "yieldpair"), result(r, "spin")
    print(pair, spin)
    assert pair["yields"] > 1000 and pair["other_yields"] > 1000, pair
    assert spin["run_ms"][0] >= 0.25 * 300, (spin, pair)


@pytest.mark.parametrize("smp,extra,k", [(1, "", 200000), (2, "", 200000), (2, "jitter=5", 50000)])
def test_cross_space_wake_is_never_lost(boot, smp, extra, k):
    """progs/tests/wakeflood.c: a waker floods SYS_seg_wake (at most 64
    ahead of delivery, so nothing is coalesced) at a space whose only
    upcall VP keeps blocking whole in a classic sleep. Every wake-up is
    delivered or answered -EAGAIN (sent again); none is -ESRCH, which
    means the space is gone, and the target receives all k. Before, wake_post
    read the racy ready() twice and a VP found ready, then blocked,
    left no candidate: -ESRCH and a lost wake-up (1 in each of two
    200,000-wake runs at -smp 2; with a shake() planted between the two
    reads, 596 of 50,000 under jitter)."""
    r = boot(f"memcheck {extra} run=wakeflood,fifo,{k}".replace("  ", " "), smp=smp, timeout=600)
    done(r, 0)
    res = result(r, "wakeflood")
    assert res["waker_status"] == 0 and res["other"] == 0, res
    assert res["esrch"] == 0 and res["lost"] == 0, res
    assert res["sent"] == k and res["received"] == k and res["coalesced"] == 0, res


def test_wake_at_a_space_without_upcalls_says_retry(boot):
    """A live space that takes no upcalls is woken: -EAGAIN (send it
    again), documented in docs/abi.md; before, -ESRCH, the answer for a
    space that is gone."""
    r = boot("run=wakeflood,probe", smp=1, timeout=60)
    done(r, 0)
    assert result(r, "wakeflood_probe")["answer"] == -11
