"""The thread-package conformance suite (progs/include/conformance.h), run by
one program, `conformance PKG[+PKG...]`, on every package of the build:
every folder threadpkgs/NAME/ (the build's one list; nothing else names
the packages). Each run must pass every test and exit 0.

Every run has preemption on and frequent (quantum=2 ms) and asks for 4
VPs (kthread ignores the count: each of its threads is a VP); user-level
packages also run on a single VP. Packages mixed in one space: every pair
in both orders (the first runs the program; thread i of a test belongs to
package i % 2), so each synchronizes with the other both ways.
"""
import itertools
import shutil
import subprocess

import pytest
from harness import ROOT, qemu
from helpers import PACKAGES, done, result


USER_LEVEL = [p for p in PACKAGES if p != "kthread"]
TESTS = ["create_join", "park", "yield", "mutex", "cond", "barrier", "sem", "once"]
QUANTUM_MS = 2
# (smp, vps): 4 VPs on 1, 2 and 4 CPUs, and one VP alone.
CONFIGS = [(1, 4), (2, 4), (4, 4), (1, 1)]
NOT_YIELD = [t for t in TESTS if t != "yield"]


def params(pkgs):
    # kthread ignores the VP count, so it has no single-VP run.
    return [pytest.param(pkg, smp, vps, id=f"{pkg}-smp{smp}-vps{vps}")
            for pkg in pkgs for smp, vps in CONFIGS if vps > 1 or pkg != "kthread"]


# A whole suite takes seconds alone; 180 s leaves room for a host running
# two 4-vCPU guests on 2 cores, where every cross-vCPU wake-up can cost
# milliseconds.
def suite(boot, pkg, smp, vps, args=(), timeout=180, kopts="", **kw):
    cmdline = f"quantum={QUANTUM_MS} {kopts}run={','.join(['conformance', pkg, f'vps={vps}', *args])}"
    r = boot(cmdline, smp=smp, timeout=timeout, **kw)
    assert r.kind == "done", f"run ended as {r.kind!r}\n{r.tail()}"
    res = result(r, "conformance")
    failed = [f"{t['name']}: {t.get('why')}" for t in res["tests"] if not t["ok"]]
    assert not failed and res["failures"] == 0, \
        f"{res['package']} failed {len(failed)} test(s):\n  " + "\n  ".join(failed) + f"\n{r.tail()}"
    assert res["vps"] == vps
    assert res["package"] == pkg
    done(r, 0)
    return res


def test_the_usual_packages_are_found():
    assert {"fifo", "naive", "kthread", "tutor", "prio"} <= set(PACKAGES), PACKAGES


@pytest.mark.parametrize("pkg,smp,vps", params(PACKAGES))
def test_conformance(boot, pkg, smp, vps):
    res = suite(boot, pkg, smp, vps, NOT_YIELD)
    assert [t["name"] for t in res["tests"]] == NOT_YIELD, res


# Yield fairness runs apart, under
# icount, for 200 ms of guest time: 100 quanta of 2 ms, as many as prio's
# starvation test (test_prio.py). In guest time the host cannot skew the
# window: in wall time, a window of 1,600,000 yields was 155 ms for fifo on
# one vCPU, and a host stall inside it once left two threads 11,382 yields
# to the others' 219,757-306,964. Under icount a thread that falls behind
# was starved by the schedule (at -smp 1 fifo gave the same counts every
# run).
#
# With more than one CPU, QEMU's icount runs the vCPUs in turn, each for a
# share of the time to the next timer deadline: without a tick, turns of
# up to half a millisecond, while the VPs on the other CPUs stand still.
# A VP running on a CPU that is not having its turn makes no progress,
# while the VPs queued there are pulled through the running CPU, so who
# falls behind depended on which VPs sat on the CPUs as turns changed:
# kthread at -smp 4 got 11,296 to 55,525 yields, or passed, as unrelated
# code moved. A 20 us tick (kernel/cmdline.c) makes the turns short, as
# CPUs that run at once (the same build: 27,995 to 31,221).
YIELD_MS = 200
YIELD_TICK_US = 20

# The bound: no thread yields more than YIELD_PCT% as often as another.
# Measured (2026-11-25, every package, 4-5 boots each): at -smp 1, where
# the counts repeat exactly, at most 1.08x (tutor); at -smp 2 and 4, where
# QEMU's icount turns follow host time in part, at most 1.42x (fifo at
# -smp 2; 1.14x-1.42x over 5 boots). The suite's default of 4x let a fifo
# balancing bug through at 4.7x (test_fifo.py's history).
YIELD_PCT = {1: 200, 2: 250, 4: 250}


@pytest.mark.parametrize("pkg,smp,vps", params(PACKAGES))
def test_yield_fairness(boot, pkg, smp, vps):
    tick = f"tick={YIELD_TICK_US} " if smp > 1 else ""
    res = suite(boot, pkg, smp, vps, [f"yield_ms={YIELD_MS}", f"yield_pct={YIELD_PCT[smp]}", "yield"],
                kopts=tick, icount=True)
    assert [t["name"] for t in res["tests"]] == ["yield"], res
    assert YIELD_MS <= res["tests"][0]["ms"] < 2 * YIELD_MS, res


PAIRS = [f"{a}+{b}" for a, b in itertools.permutations(PACKAGES, 2)]

# create_join makes 2,000 threads here, not 10,000: what a pair adds is
# threads of both packages joined by the other's and a thread of one
# creating and joining one of the other (20 such, every 100th thread),
# each checked; the 10,000 that would run a leak out of memory are each
# package's own run above. kthread's 10,000 were 1.5 s of each of its 8
# pairs' boots.
CROSS_CJ = 2000


@pytest.mark.parametrize("pair", PAIRS)
def test_cross_package(boot, pair):
    """Threads of two packages share every mutex, condition, semaphore and
    barrier; producers of one package feed consumers of the other."""
    res = suite(boot, pair, 2, 4, [f"cj={CROSS_CJ}", *NOT_YIELD], timeout=240)
    assert [t["name"] for t in res["tests"]] == NOT_YIELD, res


# fifo's yield fairness next to kthread's busy VPs (4 fifo VPs, 8 kthread
# VPs) at -smp 2 and 4 (issue 17), under icount with the 20 us tick as
# test_yield_fairness: on wall clock (a 1 s window, 4x) it failed now and
# then on a host loaded past its cores (load 8 on 2: four vCPUs' threads
# wait for two host cores, and a VP whose vCPU waits falls behind).
@pytest.mark.parametrize("smp", [2, 4])
def test_fifo_beside_kthread_yield_fairness(boot, smp):
    suite(boot, "fifo+kthread", smp, 4,
          [f"yield_ms={YIELD_MS}", f"yield_pct={YIELD_PCT[smp]}", "yield"],
          kopts=f"tick={YIELD_TICK_US} ", icount=True, timeout=240)


def test_select_subset(boot):
    # Named tests run alone, in suite order; vps= is reported back.
    res = suite(boot, "kthread", 2, 2, ["once", "barrier"])
    assert [t["name"] for t in res["tests"]] == ["barrier", "once"], res


def test_bad_argument(boot):
    r = boot("run=conformance,kthread,nosuchtest", timeout=60)
    done(r, 2)
    assert any("unknown argument 'nosuchtest'" in l for l in r.lines), r.tail()
    assert not r.results, r.tail()


def test_unknown_package(boot):
    r = boot("run=conformance,nosuchpkg", timeout=60)
    done(r, 2)
    assert any("unknown thread package 'nosuchpkg'" in l for l in r.lines), r.tail()


def test_attributes_are_declared():
    # Every package says which thread attributes it honors (struct pkg's
    # attrs); the runtime's honor the stack size, prio also priorities.
    src = (ROOT / "threadpkgs" / "prio" / "prio.c").read_text()
    assert "RT_PACKAGE(prio, PKG_ATTR_PRIO)" in src
    for p in ("fifo", "naive", "tutor"):
        assert f"RT_PACKAGE({p}, 0)" in (ROOT / "threadpkgs" / p / f"{p}.c").read_text()


def test_copy_of_tutor_is_a_package(tmp_path):
    """A copy of threadpkgs/tutor under a new folder name, with no edit
    anywhere else, is built, listed and passes conformance: the build,
    the registry (pkg_find) and the suite find it by its folder. The
    tree's build/ comes along, times kept, as after a `make` in it: the
    incremental build must notice the new folder (it did not, while the
    package libraries had a pattern rule), and builds only what it needs
    (a whole build here took most of this test's 90 s on a slow host).
    The suite runs without its yield test (a 1 s window of wall time at
    the default): the copy is tutor's code byte for byte, and tutor's
    yield fairness is test_yield_fairness[tutor-*]'s, under icount."""
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns(".git", "results", "__pycache__", "*.iso", "logs")
    for d in ("boot", "kernel", "common", "ulib", "threadpkgs", "progs", "harness", "tools", "build"):
        shutil.copytree(ROOT / d, tree / d, ignore=ignore, symlinks=True)
    shutil.copy2(ROOT / "Makefile", tree / "Makefile")
    shutil.copytree(tree / "threadpkgs" / "tutor", tree / "threadpkgs" / "tutorcopy")
    p = subprocess.run(["make", "-s", "all"], cwd=tree, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert p.returncode == 0, p.stdout[-3000:]
    iso = tree / "copy.iso"
    cmdline = f"quantum={QUANTUM_MS} run=conformance,tutorcopy,vps=4,{','.join(NOT_YIELD)}"
    p = subprocess.run(["python3", "-m", "harness.iso", "--out", str(iso), "--cmdline", cmdline],
                       cwd=tree, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert p.returncode == 0, p.stdout[-3000:]
    r = qemu.run(cmdline, smp=2, timeout=240, iso=iso)
    assert r.kind == "done", r.tail()
    res = result(r, "conformance")
    assert res["package"] == "tutorcopy" and res["failures"] == 0, r.tail()
    assert [t["name"] for t in res["tests"]] == NOT_YIELD and all(t["ok"] for t in res["tests"]), res
    done(r, 0)
