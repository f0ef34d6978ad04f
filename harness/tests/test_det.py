"""The deterministic package (threadpkgs/det, docs/posix.md "The
deterministic package"): one thread at a time holds the token, which
moves only at the program's own synchronization, so a racy program gives
the same output every run. progs/posix/racey does unsynchronized
read-modify-writes on a shared array from many threads, besides a lock
log, a barrier, rand() and malloc, and prints a signature of each. Under
fifo at -smp 2 the signatures differ from run to run (the control);
under det every run over -smp 1/2/4, 1-8 VPs, the kernel's jitter and
another space beside it gives the same signatures and the same order of
console lines. `make racey N=...` runs many more (tools/racey.py). Also:
ptest (the POSIX conformance program every package passes) on det, and a
deadlock reported as one."""
import pytest
from helpers import done, only, self_test
from test_posix import ptest_passed

RACEY = "8,20000"
FIELDS = ("sig", "order", "rand", "heap")

# (smp, vps, kernel words before the run, a second space beside)
SETTINGS = [(1, 1, "", False), (1, 8, "jitter=1", False), (2, 2, "", False),
            (2, 8, "", False), (2, 4, "jitter=2", False), (2, 2, "", True),
            (4, 4, "", False), (4, 1, "jitter=3 quantum=2", False),
            (4, 8, "jitter=4", True)]


def racey(boot, pkg, smp, vps=None, pre="", beside=False, args=RACEY):
    prog = f"run=racey,pkg={pkg}" + (f",vps={vps}" if vps else "") + f",{args}"
    other = " run=racey,pkg=fifo,vps=2,16,20000" if beside else ""
    r = boot(f"{pre} {prog}{other}".strip(), smp=smp, timeout=180)
    done(r, 0)
    res = only(r, "result", name="racey", threads=8)
    lines = [l for l in r.lines if l.startswith("racey thread")]
    if pkg == "det":      # its own figures: the token's moves, the same too
        st = only(r, "result", name="det.stats")
        res = dict(res, moves=st["moves"], threads_made=st["threads"])
    return tuple(res[f] for f in FIELDS + (("moves", "threads_made") if pkg == "det" else ())), lines


def test_racey_differs_under_fifo(boot):
    """The control: the race is real. Four fifo runs at -smp 2 give at
    least two different array signatures."""
    sigs = {racey(boot, "fifo", 2)[0][0] for _ in range(4)}
    assert len(sigs) >= 2, sigs


def test_racey_is_repeatable_under_det(boot):
    """Every setting gives the same four signatures and token moves and,
    without another space printing beside it, the same lines in the same
    order."""
    seen = {}
    first_lines = None
    for smp, vps, pre, beside in SETTINGS:
        sig, lines = racey(boot, "det", smp, vps, pre, beside)
        seen[(smp, vps, pre, beside)] = sig
        if not beside:
            first_lines = first_lines or lines
            assert lines == first_lines, (smp, vps, pre, lines, first_lines)
    assert len(set(seen.values())) == 1, seen
    assert len(first_lines) == 8


def test_racey_with_timeouts_is_repeatable_under_det(boot):
    """racey's `timed` mode: every thread also sleeps and times out in a
    condition wait, 20 times each; det's timeouts (logical time) come at
    the same points in every run, so the signatures, the token's moves
    and the count of timeouts are the same."""
    seen = {}
    for smp, vps, pre in [(1, 1, ""), (2, 4, "jitter=5"), (4, 8, "")]:
        r = boot(f"{pre} run=racey,pkg=det,vps={vps},{RACEY},timed".strip(), smp=smp,
                 timeout=180)
        done(r, 0)
        res = only(r, "result", name="racey")
        st = only(r, "result", name="det.stats")
        assert st["timeouts"] >= 8 * 20, st       # the condition waits at least
        seen[(smp, vps, pre)] = tuple(res[f] for f in FIELDS) + (st["moves"], st["timeouts"])
    assert len(set(seen.values())) == 1, seen


# det and its parallel phase (det=par, threadpkgs/det/par.c): par at -smp 2
# only, and with ptest's stress loops a tenth as long (div=10): every lock
# is a round of the token there, and mutex's 12,000 locks, barrier's
# 20,000 spin locks, cond's 2,000 and sem's 3,000 hand-offs were 40 of the
# run's 53 s. A tenth still has each of mutex's four threads yield inside
# its lock 5 times (a lock that let another in loses an update at the
# first), 2,000 spin locks, 200 signals, 300 items through sem's ring of 4.
MODES = [("det", 1), ("det", 2), ("det,det=par,div=10", 2)]
IDS = ["det-1", "det-2", "par-2"]


@pytest.mark.parametrize("pkg,smp", MODES, ids=IDS)
def test_ptest_on_det(boot, pkg, smp):
    """Every area of ptest, as on the general-purpose packages
    (test_posix.py::test_ptest)."""
    r = boot(f"run=ptest,pkg={pkg}", smp=smp, timeout=900)
    ptest_passed(r, f"{pkg} smp={smp}")


# The self-checking POSIX programs the other packages pass, with each
# one's own test's minimum of checks (test_atomics.py, ...).
PROGRAMS = [("atomics", 45), ("c11thr", 110), ("discard", 39), ("forkposix", 27),
            ("mprot", 50), ("pipes", 105), ("portcompat", 330), ("bigstack", 260),
            ("timers", 128), ("uctx", 34)]


# det=par runs them too but for those that test what its model leaves out
# (docs/posix.md, "The parallel phase"): atomics and portcompat (atomic
# read-modify-writes of program globals between synchronizations, and a
# lock of the program's own on futex calls and atomics), discard (it
# counts the VP det=par keeps for the next thread as memory lost).
PAR_OUT = {"atomics", "portcompat", "discard"}
CASES = [(p, n, "det") for p, n in PROGRAMS] + \
        [(p, n, "det,det=par") for p, n in PROGRAMS if p not in PAR_OUT]


# c11thr's 4 x 2,000 locks on det=par, a round of the token each, were 9
# of its 10 s: a tenth (div=10) still has each thread yield inside its
# lock 4 times (a lock that let another in loses an update at the first).
PAR_ARGS = {"c11thr": ",div=10"}


@pytest.mark.parametrize("prog,at_least,pkg", CASES,
                         ids=[p + ("-par" if "par" in k else "") for p, _, k in CASES])
def test_posix_programs_on_det(boot, prog, at_least, pkg):
    extra = PAR_ARGS.get(prog, "") if "par" in pkg else ""
    self_test(boot, prog, pkg + extra, 2, at_least, timeout=300)


@pytest.mark.parametrize("smp,vps", [(1, 1), (2, 4), (4, 4)])
def test_conformance_on_det(boot, smp, vps):
    """The thread-package conformance suite (test_conformance.py's
    settings, yield fairness included: with one queue det's yields are
    round robin) on det alone; det is not in the cross-package pairs (its
    deadlock report would end a det thread's wait for a slow partner)."""
    from test_conformance import TESTS, suite
    res = suite(boot, "det", smp, vps)
    assert [t["name"] for t in res["tests"]] == TESTS, res


def test_deadlock_is_reported(boot):
    """main holds a mutex a thread waits for, and joins that thread: det
    names both threads and exits with status 86, not a hang."""
    r = boot("run=racey,pkg=det,deadlock", smp=2, timeout=60)
    res = only(r, "result", name="det.deadlock")
    assert len(res["blocked"]) == 2, res
    assert any("det: deadlock" in l for l in r.lines), r.tail()
    ex = r.events("exit")
    assert [e["status"] for e in ex] == [86], r.tail()
