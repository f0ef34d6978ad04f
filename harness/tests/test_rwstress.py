"""progs/posix/rwstress.c: a read-write lock hammered by timed waits and
signals on every package (det too) at -smp 1 and 2 (issue 34's rwsig).
Readers and writers take it with timedrdlock/timedwrlock (and the clock,
try and untimed forms) with deadlines 0-750 us ahead while a signaller
pthread_kills them one at a time, each signal waited for: a lost signal,
a waiter that owns the lock and says ETIMEDOUT (or is told 0 and does
not own it), a writer beside a reader, or counts left wrong after a
timed-out waiter left the queue all fail it, or hang it. Readers
preferred, writers preferred, and a process-shared lock; bounded by
rounds, not time. Before it: the conf area's glibc answers (EINVAL for a
bad clock or tv_nsec even on a free lock, before EDEADLK)."""
import pytest
from helpers import done, result, PKGS_DET, pkg_cases

KINDS = ["reader", "writer", "pshared"]


def stress_passed(r, label):
    for k in KINDS:
        res = result(r, f"rwstress.{k}")
        assert res["bad"] == 0 and res["other"] == 0, (label, res)
        assert res["lost"] == 0 and res["handled"] == res["sent"] == 300, (label, res)
        assert res["ok"] + res["timedout"] + res["busy"] == res["rounds"], (label, res)
    assert result(r, "rwstress.conf")["failures"] == 0, r.tail()
    total = result(r, "rwstress")
    assert total["failures"] == 0 and total["checks"] >= 130, (label, total, r.tail())
    done(r, 0)


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_rwstress(boot, pkg, smp):
    r = boot(f"run=rwstress,pkg={pkg}", smp=smp, timeout=300)
    stress_passed(r, f"{pkg} -smp {smp}")


@pytest.mark.parametrize("pkg", PKGS_DET)
def test_rwlock_glibc_answers(boot, pkg):
    """The conf area alone: tryrdlock/trywrlock EBUSY, EDEADLK for the
    writer's own rdlock/wrlock (timed too), EPERM for an unlock of a free
    lock, both clocks, and EINVAL for a bad clock or tv_nsec whether or
    not the lock is free (glibc checks first; it was 0 on a free lock)."""
    r = boot(f"run=rwstress,pkg={pkg},conf", smp=1, timeout=120)
    res = result(r, "rwstress.conf")
    assert res["failures"] == 0 and res["checks"] >= 39, r.tail()
    done(r, 0)
