"""A same-process post wakes a det thread's cross-space wait at once
(progs/tests/xself.c): det (and det=par) never waits in the kernel; an
xsem wait naps on det's clock (20 token moves a ms) and looks again.
Before, a post from a thread of the same process was seen only at the
waiter's next look: the poster yielded a nap's worth of times before
the waiter woke. Now the waiter is on its process's list
(ulib/rt/ownwait.c) and the post unblocks it: it runs at the poster's
first yield. Counted in yields, so the same on any host. Every package
must wake its waiter; det's bound is exact (deterministic)."""
import pytest
from helpers import PKGS_DET, result, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET + ["det=par"]))   # det=par: the program's word
def test_same_process_post_wakes_at_once(boot, pkg, smp):
    r = boot(f"run=xself,{pkg}", smp=smp)
    res = result(r, "xself")
    assert res["woke"] == 1, res
    if pkg.startswith("det"):
        assert res["yields"] <= 1, res
        assert res["ownwoke"] >= 1, res
