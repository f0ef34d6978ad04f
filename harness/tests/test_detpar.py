"""det's parallel phase (`pkg=det det=par`, threadpkgs/det/par.c,
docs/posix.md "The parallel phase"): threads run at once, each in an
isolated view of the program's data (kernel/view.c), and commit their
changes in a fixed order at every synchronization, malloc, print and
rand. progs/posix/racey's unsynchronized read-modify-writes on its shared
array (in the program's .bss: in the view) then give the same signatures
and console lines over -smp 1/2/4, the kernel's jitter and another space
beside it, while the threads did run in parallel phases of more than one
thread (det.stats: transactions outnumber the parallel phases). The
control (fifo differs run to run) is test_det.py's."""
from helpers import done, only

RACEY = "8,20000"
FIELDS = ("sig", "order", "rand", "heap")
SETTINGS = [(1, ""), (2, ""), (2, "jitter=2"), (4, "jitter=4"), (2, "beside")]
# det.stats figures that count what happened, not how long it took
STATS = ("moves", "tx", "commit_pages", "phases", "threads")


def racey(boot, smp, pre, args=RACEY):
    other = " run=racey,pkg=fifo,vps=2,16,20000" if pre == "beside" else ""
    pre = "" if pre == "beside" else pre
    r = boot(f"{pre} run=racey,pkg=det,det=par,{args}{other}".strip(), smp=smp, timeout=300)
    done(r, 0)
    res = only(r, "result", name="racey", threads=8)
    st = only(r, "result", name="det.stats")
    lines = [l for l in r.lines if l.startswith("racey thread")]
    return tuple(res[f] for f in FIELDS) + tuple(st[k] for k in STATS), lines


def test_racey_is_repeatable_with_the_parallel_phase(boot):
    seen, first = {}, None
    for smp, pre in SETTINGS:
        sig, lines = racey(boot, smp, pre)
        seen[(smp, pre)] = sig
        if pre != "beside":
            first = first or lines
            assert lines == first, (smp, pre, lines, first)
    assert len(set(seen.values())) == 1, seen
    assert len(first) == 8
    moves, tx, pages, phases, threads = sig[len(FIELDS):]
    assert threads == 9 and pages > 0, sig
    assert tx > phases, sig          # some phases ran several threads at once


def test_racey_with_timeouts_under_the_parallel_phase(boot):
    """racey's `timed` mode (sleeps, condition waits that time out) on
    logical time: the same figures at -smp 1 and 4."""
    a, _ = racey(boot, 1, "", RACEY + ",timed")
    b, _ = racey(boot, 4, "jitter=3", RACEY + ",timed")
    assert a == b, (a, b)


def test_deadlock_is_reported_under_the_parallel_phase(boot):
    r = boot("run=racey,pkg=det,det=par,deadlock", smp=2, timeout=60)
    res = only(r, "result", name="det.deadlock")
    assert len(res["blocked"]) == 2, res
    assert [e["status"] for e in r.events("exit")] == [86], r.tail()
