"""The experiment applications (progs/apps/gauss.c, psort.c, speedup.c, mpl.c,
scale.c) compute the right thing on every package: small instances, each
checked by the guest itself (ok: true, exit 0) and by the shape of its
@result line. No timing is asserted here; the figures are make bench's.
Wall-clock TCG, -smp 2 unless noted: the sync paths cross CPUs."""
import pytest
from helpers import PACKAGES, done, result

PKGS = [p for p in ("fifo", "kthread", "naive") if p in PACKAGES]
TIMEOUT = 60


def check(r, name, package):
    """The run ended with status 0 and one @result `name` that says ok."""
    res = result(r, name)
    assert res["ok"] is True, f"the guest's own check failed: {res}\n{r.tail()}"
    assert res["package"] == package, res
    assert isinstance(res["value"], (int, float)) and res["value"] > 0, res
    done(r, 0)
    return res


@pytest.mark.parametrize("pkg", PKGS)
def test_gauss(boot, pkg):
    r = boot(f"run=gauss,{pkg},48,6,0,2", smp=2, timeout=TIMEOUT)
    res = check(r, f"gauss.{pkg}", pkg)
    assert res["unit"] == "seconds" and res["value"] == res["seconds"], res
    assert (res["n"], res["threads"], res["vps"], res["reps"]) == (48, 6, 2, 2), res
    assert res["err"] < 1e-9 and res["residual"] < 1e-6, res


@pytest.mark.parametrize("pkg", PKGS)
def test_psort(boot, pkg):
    r = boot(f"run=psort,{pkg},20000,6,0,64", smp=2, timeout=TIMEOUT)
    res = check(r, f"sort.{pkg}", pkg)
    assert res["sorted"] is True and res["permutation"] is True, res
    assert res["keys"] == 20000 and res["grain"] == 64, res
    # A thread per split: hundreds of sorters were created and joined.
    assert res["created"] > 20000 // 64, res


@pytest.mark.parametrize("pkg", PKGS)
def test_speedup(boot, pkg):
    r = boot(f"run=speedup,{pkg},2,32", smp=2, timeout=TIMEOUT)
    res = check(r, f"speedup.{pkg}.tpp2", pkg)
    assert res["unit"] == "ratio", res
    assert (res["smp"], res["threads"], res["vps"]) == (2, 4, 2), res
    assert res["t1_seconds"] > 0 and res["seconds"] > 0, res


def test_mpl_copies(boot):
    """Four copies in one boot, one per package and warning setting; each
    checks that its spin lock kept every shared update."""
    copies = [("fifo", "on"), ("fifo", "off"), ("kthread", "off")]
    if "naive" in PKGS:
        copies.append(("naive", "off"))
    k = len(copies)
    words = " ".join(f"run=mpl,{p},{k},{w},2,0,3000,100,50,{i}"
                     for i, (p, w) in enumerate(copies))
    r = boot(f"quantum=5 {words}", smp=2, timeout=TIMEOUT)
    done(r, 0)
    got = {x["copy"]: x for x in r.results}
    assert sorted(got) == list(range(k)), r.tail()
    for i, (p, w) in enumerate(copies):
        res = got[i]
        assert res["name"] == f"mpl{k}.{p}.warn_{w}", res
        assert res["ok"] is True and res["copies"] == k and res["iters"] == 3000, res
        assert res["warn"] is (w == "on") and res["quantum_ns"] == 5_000_000, res
    assert got[0]["warn_ns"] > 0 and got[1]["warn_ns"] == 0, (got[0], got[1])


def test_scale_count(boot):
    r = boot("run=scale,count,3000,2032", smp=2, timeout=TIMEOUT)
    res = check(r, "scale.fifo", "fifo")
    assert res["threads"] == 3000 and res["stack"] == 2032, res
    assert 2032 < res["bytes_per_thread"] < 16384, res
    assert 0 < res["stack_used_below_wait"] < 1016, res


def test_scale_max_runs_out_of_memory(boot):
    """max mode in a small guest: creating stops when memory is out, and
    every thread made is still blocked, woken and joined."""
    r = boot("run=scale,max,1000000,2032", smp=1, mem="128M", timeout=TIMEOUT)
    res = result(r, "scale.fifo.max")
    assert res["ok"] is True and res["stopped"] == "memory", f"{res}\n{r.tail()}"
    assert res["unit"] == "threads" and res["value"] == res["max_threads"] == res["threads"], res
    # 128 MiB at ~3 KiB a thread: tens of thousands.
    assert 10_000 < res["max_threads"] < 128 * 2**20 // 2032, res
    done(r, 0)
