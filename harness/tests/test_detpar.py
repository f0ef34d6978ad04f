"""det's parallel phase (`pkg=det det=par`, threadpkgs/det/par.c,
docs/posix.md "The parallel phase"): threads run at once, each in an
isolated view of the program's data (kernel/view.c), and commit their
changes in a fixed order at every synchronization, print and
rand. progs/posix/racey's unsynchronized read-modify-writes on its shared
array (in the program's .bss: in the view) then give the same signatures
and console lines over -smp 1/2/4, the kernel's jitter and another space
beside it, while the threads did run in parallel phases of more than one
thread (det.stats: transactions outnumber the parallel phases). racey's
`pipe` figure (the order of the threads' writes to a pipe in the middle
of their parallel stints) is the same too: write() is a fence, as are
the other system calls whose order another thread can see. The control
(fifo differs run to run) is test_det.py's. det=par's heap
(threadpkgs/det/heap.c: per-thread arenas in an isolated range) makes
malloc'd memory isolated and deterministic too, and its mallocs serial
operations no more (the two heap tests)."""
from helpers import done, only

RACEY = "8,20000"
FIELDS = ("sig", "order", "rand", "heap", "pipe")   # pipe: write() is a fence
SETTINGS = [(1, ""), (2, ""), (2, "jitter=2"), (4, "jitter=4"), (2, "beside")]
# det.stats figures that count what happened, not how long it took
STATS = ("moves", "tx", "commit_pages", "phases", "threads", "races")


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
    moves, tx, pages, phases, threads, races = sig[len(FIELDS):]
    assert threads == 9 and pages > 0, sig
    assert races > 0, sig            # racey's race, seen by the commits (INFO_VIEW_RACES)
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


HEAP_BASE = 0x0000040000000000          # threadpkgs/det/heap.c's range
HEAP_STATS = ("used", "turns", "arenas", "chunks", "spans", "fallback", "stray")


def test_racey_on_a_malloced_array_is_repeatable(boot):
    """racey's `heap` mode races on a calloc'd array: under det=par it is
    in the isolated heap, so the signature, and the blocks' addresses
    themselves (`addr`, `base`), and the heap's own counts are the same at
    -smp 1, 2 and 4 with jitter. (With malloc'd memory shared directly,
    the threads' racy stores met at -smp 2 and 4 and the signature
    changed.)"""
    seen, res, st = {}, None, None
    for smp, pre in ((1, ""), (2, ""), (4, "jitter=3"), (2, "jitter=2")):
        r = boot(f"{pre} run=racey,pkg=det,det=par,8,20000,heap".strip(), smp=smp, timeout=300)
        done(r, 0)
        res = only(r, "result", name="racey", threads=8)
        st = only(r, "result", name="det.heap")
        seen[(smp, pre)] = tuple(res[f] for f in FIELDS + ("addr", "base")) + \
            tuple(st[k] for k in HEAP_STATS)
    assert len(set(seen.values())) == 1, seen
    assert int(res["base"], 16) >= HEAP_BASE, res      # main's block: in the range
    assert st["base"] == HEAP_BASE and st["arenas"] >= 2, st
    assert st["fallback"] == 0 and st["stray"] == 0, st


def test_revindex_mallocs_need_no_token_under_icount(boot):
    """revindex mallocs and reallocs in its threads' loops: with every
    malloc a serial operation det=par took 8.5x fifo's instructions; with
    per-thread arenas it is within 2x, measured side by side in one boot
    under icount (deterministic), and its heap took a turn of the token
    only for new chunks (a few dozen, not one per call)."""
    r = boot("run=benchseq,revindex+pkg=fifo+4+1,revindex+pkg=det+det=par+4+1",
             icount=True, timeout=300)
    done(r, 0)
    fifo = only(r, "result", name="workload.revindex.fifo")
    det = only(r, "result", name="workload.revindex.det")
    assert fifo["check"] == det["check"] == "ok", (fifo, det)
    ratio = det["value"] / fifo["value"]
    heap = only(r, "result", name="det.heap")
    assert ratio < 2.0, (ratio, heap)
    assert 0 < heap["turns"] < 100 and heap["fallback"] == 0, heap


def test_spinning_on_a_flag_is_reported_not_hung(boot):
    """progs/posix/detbad spin: a thread waits for a flag with a plain
    loop that main sets and then joins it. On fifo it ends (the
    control); under det=par the spinner's view never changes (nobody
    commits while it runs), so det ends the program with status 87
    naming the one thread still running, after `detspin=2` seconds in
    which nobody else arrived (before: a hang)."""
    r = boot("run=detbad,pkg=fifo,spin", smp=2, timeout=60)
    done(r, 0)
    only(r, "result", name="detbad", mode="spin")
    r = boot("run=detbad,pkg=det,det=par,detspin=2,spin", smp=2, timeout=120)
    res = only(r, "result", name="det.spin")
    assert len(res["running"]) == 1, res
    assert any("spinning on a shared flag" in l for l in r.lines), r.tail()
    assert [e["status"] for e in r.events("exit")] == [87], r.tail()
    assert not [e for e in r.events("result") if e.get("name") == "detbad"], r.tail()


def test_lock_order_deadlock_is_reported_under_the_parallel_phase(boot):
    """detbad lock: two threads take two mutexes in opposite orders and
    main joins them: reported as a deadlock naming all three."""
    r = boot("run=detbad,pkg=det,det=par,lock", smp=2, timeout=60)
    res = only(r, "result", name="det.deadlock")
    assert len(res["blocked"]) == 3, res
    assert [e["status"] for e in r.events("exit")] == [86], r.tail()


def test_twins_past_the_quota_kill_the_space_not_the_kernel(boot):
    """detbad quota 8: four threads each write all 2,048 pages of an 8 MiB
    array in one parallel phase, a private copy and a twin per page
    each (64 MiB) against memquota=24: the space is killed with the
    view's message while a fifo racey beside it ends normally, and the
    kernel halts in order with every page back (memcheck). On fifo the
    same program fits (the control)."""
    r = boot("memcheck memquota=24 run=detbad,pkg=fifo,quota,8", smp=2, timeout=120)
    done(r, 0)
    only(r, "result", name="detbad", mode="quota")
    r = boot("memcheck memquota=24 run=detbad,pkg=det,det=par,quota,8 "
             "run=racey,pkg=fifo,4,20000", smp=2, timeout=200)
    assert r.kind == "done", r.tail()
    assert "killed: out of memory" in r.log and "isolated view (copy and twin)" in r.log, r.tail()
    ex = {e["prog"]: e for e in r.events("exit")}
    assert ex["detbad"].get("killed") == "out of memory", ex
    assert ex["racey"]["status"] == 0, ex


def test_atomics_between_synchronizations_are_reported(boot):
    """progs/posix/atomics counts with atomic read-modify-writes of
    program globals between synchronizations, which det=par's model does
    not cover (docs/posix.md): each thread's view keeps its own count.
    Its checks of those counts fail, and det says so at the end: the
    commits found bytes two threads wrote between synchronizations
    (kernel/view.c, INFO_VIEW_RACES), where ptest's synchronized areas
    find none."""
    r = boot("run=atomics,pkg=det,det=par", smp=2, timeout=300)
    res = only(r, "result", name="atomics")
    st = only(r, "result", name="det.stats")
    assert res["failures"] > 0 and st["races"] > 0, (res, st)
    assert any("written by two threads between their synchronizations" in l
               for l in r.lines), r.tail()
    r = boot("run=ptest,pkg=det,det=par,once,rwlock,keys", smp=2, timeout=300)
    st = only(r, "result", name="det.stats")
    assert st["races"] == 0, st
    assert all(e["ok"] for e in r.events("result") if e["name"].startswith("ptest.")), r.tail()


def test_aligned_allocs_come_from_the_threads_arenas(boot):
    """progs/posix/detalign: 4 threads posix_memalign, aligned_alloc,
    memalign and valloc in a loop (and realloc and free those blocks),
    with no synchronization. Under det=par every block comes from the
    thread's arena in the isolated heap (`lo`..`hi` inside the range),
    aligned as asked, with no fallback, and the token moves only for the
    heap's new arenas and chunks and the creates and joins, not once per
    call; the figures are the same at -smp 1 and 2. (With posix_memalign,
    memalign and valloc serial operations their blocks came from the
    library's central lists, outside the range, and the token moved 2,665
    times for 1,600 calls.) Each thread also mallocs blocks of 1 to 8
    and of 16 bytes: 16-byte aligned with the room asked (`bad` 0; the
    heap's 24-byte class had left its bump pointer 8 bytes off, and the
    blocks carved after it were 8 bytes short: bad 8, or an abort on a
    corrupted free list)."""
    seen = {}
    for smp in (1, 2):
        r = boot("run=detalign,pkg=det,det=par,4,400", smp=smp, timeout=300)
        done(r, 0)
        res = only(r, "result", name="detalign")
        st = only(r, "result", name="det.stats")
        heap = only(r, "result", name="det.heap")
        seen[smp] = (res["sig"], res["lo"], res["hi"], st["moves"]) + \
            tuple(heap[k] for k in HEAP_STATS)
    assert seen[1] == seen[2], seen
    assert res["calls"] == 1600 and res["bad"] == 0, res
    lo, hi = int(res["lo"], 16), int(res["hi"], 16)
    assert HEAP_BASE <= lo <= hi < HEAP_BASE + heap["used"], (res, heap)
    assert heap["fallback"] == 0 and heap["stray"] == 0, heap
    # a turn per thread's arena (new or adopted: main and 4), chunk or span
    assert heap["turns"] <= 5 + heap["chunks"] + heap["spans"] < 20, heap
    assert st["moves"] < res["calls"] // 10, (st, res)


def test_a_thread_makes_its_children_in_one_turn(boot):
    """DTHREADS keeps the token across a thread's creates, so the children
    run together in the next parallel phase. linreg's main makes 4
    workers and joins them: det.stats' `widest` (the most threads of one
    parallel phase) is 4 (before: each create's calloc ended main's turn,
    and main could make the next worker only once the last had run its
    whole share to its first fence: widest 2, the workers one after
    another). main alone (before its first create, after its last join:
    `solo`) passes its fences with no turn, and a VP keeps its view for
    the next thread it runs: kmeans's 4 threads a round enter at most a
    view per VP (`enters`). The counts are the same at -smp 1 and 2."""
    seen = {}
    for smp in (1, 2):
        r = boot("run=benchseq,linreg+pkg=det+det=par+4+1,kmeans+pkg=det+det=par+4+1",
                 smp=smp, timeout=300)
        done(r, 0)
        lin, km = [e for e in r.events("result") if e.get("name") == "det.stats"]
        rounds = only(r, "result", name="workload.kmeans.det")["rounds"]
        seen[smp] = tuple(s[k] for s in (lin, km) for k in STATS + ("solo", "widest", "handoffs"))
    assert seen[1] == seen[2], seen
    assert lin["widest"] == 4 and lin["solo"] > 0, lin
    assert km["widest"] == 4 and km["threads"] == 4 * rounds + 1, (km, rounds)
    assert 1 <= km["enters"] <= 5, km
    assert 0 < km["handoffs"] <= km["moves"], km
