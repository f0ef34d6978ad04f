"""A thread creates detached threads in a tight loop, each returning at
once, nobody joining (progs/posix/detachloop.c): glibc on Linux never
says EAGAIN. On det=par, threads detached by attribute got EAGAIN past
255: a create kept its maker's turn until its next other fence, so the
whole loop was one turn, no child ran (to its end) before it was over,
and each held a VP (MAXVP); every token round went through all of them
(widest 256). A create's turn now makes at most 16 children (par.c
DET_BATCH), and none without a VP while it has made some: it ends, the
children run and exit, and their VPs serve the next ones."""
import pytest
from helpers import result, done, only, PKGS_PAR, pkg_cases

STATS = ("moves", "tx", "commit_pages", "phases", "threads", "widest")


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_detached_threads_in_a_tight_loop_never_eagain(boot, pkg, smp):
    r = boot(f"run=detachloop,pkg={pkg},2000,attr", smp=smp, timeout=300)
    res = result(r, "detachloop")
    assert res["failures"] == 0 and res["eagain"] == 0, r.tail()
    assert res["created"] == res["ran"] == 2000, res
    done(r, 0)


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_detached_loop_beside_240_live_threads(boot, pkg, smp):
    """240 children stay alive (a semaphore) while the loop goes on: on
    det=par fewer VPs are left than a turn's 16 children, so the turn
    ends where no VP can be made, and the next create finds one."""
    r = boot(f"run=detachloop,pkg={pkg},400,attr,hold=240", smp=smp, timeout=300)
    res = result(r, "detachloop")
    assert res["failures"] == 0 and res["eagain"] == 0, r.tail()
    assert res["created"] == res["ran"] == 400, res
    done(r, 0)


def test_det_par_stays_deterministic_and_bounded(boot):
    """det=par's counts are the same at -smp 1 and 2, no phase is wider
    than two turns' children and the maker, and a program that keeps
    300 threads alive at once still gets EAGAIN past the VPs it can
    have (255 made)."""
    seen = {}
    for smp in (1, 2):
        r = boot("run=detachloop,pkg=det,det=par,2000,attr", smp=smp, timeout=300)
        done(r, 0)
        st = only(r, "result", name="det.stats")
        seen[smp] = tuple(st[k] for k in STATS)
    assert seen[1] == seen[2], seen
    assert st["widest"] <= 33 and st["threads"] == 2001, st
    r = boot("run=detachloop,pkg=det,det=par,300,hold", smp=2, timeout=300)
    res = result(r, "detachloop")
    assert res["failures"] == 0 and res["eagain"] > 0, r.tail()
    assert res["created"] + res["eagain"] == 300 and res["ran"] == res["created"], res
    done(r, 0)
