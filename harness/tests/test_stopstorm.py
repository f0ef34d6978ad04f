"""SIGSTOP/SIGCONT storms (progs/posix/stopstorm.c; kernel/pstop.c,
psig.c, space.c): three processes each send 1000 stop-continue pairs,
alternately to a target and to its process group, while the target
forks 300 children that exit at once (some after a sleep, some after
stopping themselves), continuing any it sees stopped and reaping each.
Every package at -smp 1 and 2: no hang (the timeout), no panic, the
target exits 0 and every child
is reaped with its status."""
import pytest
from helpers import passed, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_stop_storm_at_a_forking_target(boot, pkg, smp):
    r = boot(f"run=stopstorm,pkg={pkg},3,1000,300", smp=smp, timeout=120)
    assert r.kind == "done", f"run ended as {r.kind!r} (a hang or a panic)\n{r.tail()}"
    passed(r, "stopstorm", at_least=4, forks=300, reaped=300, pkg=pkg)
