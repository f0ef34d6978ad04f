"""The kernel's counts of view and TLB work (INFO_VSTAT, kernel/vstat.c,
<anima/vstat.h>), printed by progs/bench/vstat between the programs of one
benchseq boot: each interval's differences are that program's."""
import pytest
from helpers import done

VIEW = ("vfault_hold", "vfault_priv", "commits", "commit_pages", "dropped", "cr3_view",
        "dispatch_view")


def intervals(r):
    """The vstat records' differences, one dict per program between them,
    and the det.stats records in order."""
    vs = [x for x in r.results if x.get("name") == "vstat"]
    diffs = [{k: b[k] - a[k] for k in a if k not in ("name", "tsc_hz")} for a, b in zip(vs, vs[1:])]
    return diffs, [x for x in r.results if x.get("name") == "det.stats"]


@pytest.mark.parametrize("smp", [1, 2])
def test_vstat_counts_det_pars_view_work_and_nothing_for_fifo(boot, smp):
    """histogram on fifo makes no view work; on det=par its faults, commits
    and CR3 loads are counted, and the kernel's committed pages are det's
    own count (det.stats commit_pages): each was made private first, each
    drop flushed its one page (invlpg), and a VP in a view was dispatched."""
    steps = "vstat,histogram+pkg=fifo+4+1,vstat,histogram+pkg=det+det=par+4+1,vstat"
    r = boot(f"run=benchseq,{steps}", smp=smp, timeout=180)
    done(r, 0)
    (fifo, par), stats = intervals(r)
    assert all(fifo[k] == 0 for k in VIEW), fifo
    assert fifo["dispatch"] > 0 and fifo["cr3_space"] > 0, fifo
    assert len(stats) == 1 and stats[0]["mode"] == "par", stats
    assert par["commit_pages"] == stats[0]["commit_pages"] > 0, (par, stats)
    assert par["commits"] >= stats[0]["tx"] > 0, (par, stats)
    assert par["vfault_priv"] >= par["commit_pages"] and par["vfault_hold"] > 0, par
    assert par["invlpg"] >= par["dropped"] >= par["commit_pages"], par
    assert 0 < par["dispatch_view"] <= par["dispatch"] and par["cr3_view"] > 0, par
    assert par["vfault_tsc"] > 0 and par["commit_tsc"] > 0, par
