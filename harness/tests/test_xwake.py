"""Cross-space wake-ups routed at user level (issue 15; ulib/xwait.c,
kernel/segwake.c, progs/bench/xbench.c), under icount at -smp 1, where
the figures are deterministic guest instruction counts measured side by
side in one run.

- a waiter of an upcall package on <xsync.h> parks at user level, so the
  same-space xsem signal-wait costs close to <sync.h>'s usem one (it was
  7.4x with every wait in the kernel);
- the cross-space signal-wait and mutex hand-off stay below 5.5x the
  same-space figures (fifo: 4.9x and 3.9x measured; a regression guard:
  with every wait in the kernel fifo's was 3,469 instructions, now 2,254);
- the issue's target, cross-space within 3x of same-space, is missed
  (docs/thread-interface.md, "Cost", says where the rest goes): a strict
  xfail, so reaching it shows up.
"""
import pytest
from helpers import done


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


@pytest.mark.xfail(strict=True, reason="cross-space signal-wait is 4.9x same-space; target 3x")
def test_cross_space_target(boot):
    f = figures(boot, "fifo")
    assert f["xspace.fifo.signal_wait"] <= 3 * f["same.fifo.signal_wait"], f
