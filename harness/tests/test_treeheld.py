"""INFO_TREE_HELD and INFO_SPACES_HELD while the tree churns
(progs/posix/treeheld.c; kernel/space.c): main forks children in rounds
and ends them by _exit, SIGKILL and SIGTERM while a reader thread reads
both counts in a loop, under memcheck. Every reading keeps its
invariants (the reader's own space counts, the tree's spaces are among
all spaces, no count wraps or runs away), and once every child is
collected the tree settles to the caller alone. On fifo and kthread,
at -smp 1 and 2 (on 2 CPUs the reads race the take-downs)."""
import pytest
from helpers import done, result, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread"]))
def test_tree_held_under_churn(boot, pkg, smp):
    r = boot(f"memcheck run=treeheld,pkg={pkg},40", smp=smp, timeout=240)
    res = result(r, "treeheld")
    assert res["failures"] == 0, r.tail()
    assert res["rounds"] == 40 and res["reads"] > 40, res
    assert res["tree_end"] == 1 and res["spaces_end"] == 1, res
    assert 1 <= res["tree_max"] <= 18, res
    done(r, 0)
