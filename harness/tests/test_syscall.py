"""The syscall boundary: bad numbers, pointers and arguments are refused
with an error, never a kernel crash; random syscalls cannot hurt it."""
import pytest
from helpers import done, only, result


@pytest.mark.parametrize("smp", [1, 2])
def test_badcall(boot, smp):
    r = boot("run=badcall", smp=smp)
    res = result(r, "badcall")
    assert res["failures"] == 0 and res["failed"] == [], f"{res}\n{r.tail()}"
    assert res["checks"] >= 15, res   # it really checked something
    done(r, 0)
    assert only(r, "exit", prog="badcall")["status"] == 0


@pytest.mark.parametrize("seed", [1, 20240601])
def test_sysfuzz(boot, seed):
    r = boot(f"run=sysfuzz,100000,{seed}", smp=2, timeout=240)
    done(r, 0)
    res = result(r, "sysfuzz")
    assert res["calls"] == 100000 and res["seed"] == seed, res
    assert only(r, "exit", prog="sysfuzz")["status"] == 0


def test_sysfuzz_default_seed(boot):
    r = boot("run=sysfuzz,20000", smp=2, timeout=240)
    done(r, 0)
    res = result(r, "sysfuzz")
    # The seed is reported so that a failing run can be repeated.
    assert res["calls"] == 20000 and isinstance(res["seed"], int), res
    assert f"sysfuzz: seed {res['seed']}" in r.lines, r.tail()


def test_fuzz_beside_others(boot):
    # Fuzzing in one space must not disturb the others.
    r = boot("run=hello,0 run=sysfuzz,30000,7 run=badcall run=hello,0", smp=2, timeout=240)
    done(r, 0)
    assert result(r, "badcall")["failures"] == 0
    # badcall spawns children of its own: every space started ends with 0.
    started = sorted(e["space"] for e in r.events("start"))
    assert sorted(e["space"] for e in r.events("exit")) == started and len(started) >= 4, r.tail()
    assert all(e["status"] == 0 for e in r.events("exit")), r.tail()
