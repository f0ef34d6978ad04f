"""Real third-party-style pthread code (issue 14's last mile):
progs/ported/gnuthreads, written as Linux programs are (glibc headers,
_GNU_SOURCE, mmap'd stacks via pthread_attr_setstack, cpu_set_t affinity,
named threads, timed and try joins, sched_getcpu, qsort_r, the robust
mutex attribute, signals/files/poll as such programs touch them), on
every package at -smp 1 and 2. docs/posix.md's "GNU extensions"."""
import pytest
from helpers import done, result, pkg_cases
from test_posix import PACKAGES


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_gnuthreads(boot, pkg, smp):
    r = boot(f"run=gnuthreads,pkg={pkg}", smp=smp, timeout=120)
    e = result(r, "gnuthreads")
    assert e["ok"], f"{pkg} smp={smp}: {e['fails']} failed, first: {e['why']}\n{r.tail()}"
    assert e["ncpu"] == smp and e["threads"] == 2 * smp + 2, e
    # The workers' slices (sorted with qsort_r, summed under a mutex) add
    # up to the array the guest filled: recomputed here.
    expect = sum((i * 2654435761 % 2**32) % 100000 for i in range(e["threads"] * 500))
    assert e["total"] == expect, e
    assert "robust mutexes: yes" in r.lines, r.tail()   # (portcompat robust: their rules)
    done(r)
