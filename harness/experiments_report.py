"""
Render docs/results.md and its plots (docs/img/*.png) from the JSON that
harness/experiments.py writes, and nothing else: rendering can be redone
without measuring again (`python3 -m harness.experiments --render-only`).

Psyche's figures (Marsh, LeBlanc, Scott, Markatos, SOSP '91) and the
targets of the issues are the only numbers written here by hand.
"""
import re

from . import ROOT

DOC = ROOT / "docs" / "results.md"
IMG = ROOT / "docs" / "img"
PKG_ORDER = ("kthread", "fifo", "naive", "tutor", "prio")
COLOR = {"kthread": "tab:blue", "fifo": "tab:orange", "naive": "tab:green", "tutor": "tab:red",
         "prio": "tab:purple"}

MICRO_PKG = [("create_join", "null thread (create, run, exit, join)"),
             ("yield", "yield"),
             ("mutex_uncontended", "mutex lock + unlock, uncontended"),
             ("signal_wait", "signal-wait hand-off (half a ping-pong)")]
MICRO_KERNEL = [("syscall.null", "null syscall"),
                ("upcall.delivery", "upcall delivery (signal to handler and back)"),
                ("upcall.block_roundtrip", "BLOCKED + UNBLOCKED round trip, zero-latency I/O")]
# Targets from the issues, in guest instructions (icount).
# Issue 17: fifo yield <= 55, signal-wait <= 296, create+join <= 400 (tuned
# Argobots: 404); prio yield <= 120, create+join <= 600.
TARGETS = {"fifo.yield": 55, "fifo.mutex_uncontended": 30, "fifo.create_join": 400,
           "fifo.signal_wait": 296, "prio.yield": 120, "prio.create_join": 600,
           "upcall.delivery": 500}
# Psyche's application table: (kernel-level s, user-level s).
PSYCHE_APPS = {"gauss": (33.8, 22.0), "sort": (44.3, 27.1)}
APP_TITLE = {"gauss": "Gaussian elimination, 256 x 256", "sort": "parallel sort, 2^20 keys"}
# Why kthread's speedup collapses (issue 16), from the traces of the
# runs named; the figures in it were measured by hand, not by make bench.
KTHREAD_COLLAPSE = """**Why kthread collapses.** Each pivot step of the elimination ends at a barrier, so every
thread blocks in the kernel (a futex wait: the whole VP) and is woken once per step: with
kthread that is a block, a wake-up and a dispatch per thread per step, 256 steps, where fifo
switches threads in user mode. Three things made it worse than that cost alone, and the
scheduling trace shows each (`python3 -m harness trace speedup kthread 4 256 --smp 2`):

- *Woken VPs went to a CPU that could not take them.* A woken VP is queued on the CPU it last
  ran on and that CPU, if halted, gets an IPI. Under multi-threaded TCG a halted vCPU sleeps
  in the host; to run again its thread must win QEMU's global lock from the vCPU that sent the
  IPI, whose every LAPIC access takes that lock too. In one traced run (host load 10) CPU 1
  sat halted 43.8 of 55 ms while CPU 0 sent it 1,681 IPIs, then blocked its own VP and ran the
  woken one itself (1,681 dispatches on CPU 0, 108 on CPU 1): one CPU did the work of two and
  paid the kernel hand-off on every step. Not the kernel's fault, but the kernel made it worse:
  it reprogrammed the LAPIC timer (three register accesses, each taking the lock and waking
  QEMU's main loop) at every dispatch, some thousands of times a second per CPU in a
  hand-off-bound run. Now the timer is only ever moved earlier (kernel/lapic.c), so a dispatch
  touches no device. `idlepoll=US` lets an idle CPU poll its queues before it halts (off by
  default: kernel/idlepoll.c says why).
- *Under -icount a vCPU runs only when the running one gives up QEMU's round-robin thread*
  (a pause, hlt or timer deadline): an IPI to a halted vCPU was served at the sender's next
  timer deadline if the sender kept computing. The kernel now pauses after each IPI, and the
  traced wake shows the woken CPU leaving hlt 160 instructions after the IPI. Whatever the woken
  VP does next still waits for a turn if the sender then spins without a pause, which is why
  xwake's waker pauses in its loops (a first version whose waker did not measured 4.4 ms
  median without the kernel's pause and 9.8 ms with it: the woken VP was dispatched at once but
  lost its turn before reaching user mode, then waited out the waker's quantum). The
  wake itself is 1,511 instructions; without the IPI it is 9.8 ms, the rest of the waker's
  quantum (test_xcpu.py asserts every wake under 1% of a quantum).
- *More vCPUs than host cores.* At 4 CPUs on this 2-core host, two vCPUs at a time are
  descheduled by the host for whole host ticks. A vCPU descheduled while holding a kernel spin
  lock (kop_lock, one lock for every futex wait and wake in the system) stops every other CPU
  that needs it, and at 16 threads per CPU 64 kthread VPs go through that lock twice per pivot
  step. The kernel's locks were FIFO tickets, which made it far worse: a vCPU descheduled
  while merely *next in line* stopped every CPU queued behind it, with the lock free. The
  locks are now test-and-test-and-set (kernel/spinlock.h), as Linux falls back to in guests
  without paravirtual locks: side by side, alternating boots on a quiet host, kthread at
  4 CPUs went from 0.236 and 0.232 to 0.539 and 0.681 at 1 thread per CPU, and from 0.017
  and 0.013 to 0.163 and 0.161 at 4 (the table's 4-CPU rows are measured with the new
  locks). A descheduled *holder* still stalls its waiters; only paravirtual locks (a waiter
  that halts until the holder kicks it) or a finer futex lock would help there, and this
  branch attempts neither. fifo holds no kernel lock to switch threads, so it does not
  collapse, but its VPs still spin on each other's user locks (methodology.md)."""
# fifo's side of Figure 3 (issue 16): what changed and what is left; the
# before/after figures in it were measured by hand on a quiet host.
FIFO_SPEEDUP = """**fifo at 2 CPUs.** Each point is the median over 5 repetitions, each timing the one-thread
baseline and right after it the parallel elimination in the same boot (progs/bench/speedup.c;
timed once each, one configuration's points spread from 0.6 to 2.2 on a lightly loaded host).
fifo ran no faster on 2 CPUs than on 1 (0.90 at 1 thread per CPU) until an idle VP learned to
spin before idling (docs/thread-interface.md, "Spin, then idle"): at every pivot step the
thread that reaches the barrier first parked, its VP found nothing to run and idled in the
kernel, and the last thread's wake-up then took a signal, an IPI to a halted vCPU (tens of
microseconds to milliseconds under TCG, the cross-CPU wake-up above), a dispatch and an upcall,
256 times per elimination. With the spin, the waiting VP takes the woken thread in user mode
(on a host busy with other work a trace still showed 147 idles of median 145 µs on one CPU in
one elimination: a VP whose peer's vCPU the host stalled waits past the 50 µs). What is left
at 16 threads per CPU is the user-level block, wake-up and switch of 16 threads per VP per
step against 87 µs of arithmetic per step and VP. Timed per step (thread 0 after each barrier,
one elimination each, quiet host, by hand), 16 threads per CPU cost 7–8 µs more per step than
1 (median), about as much at the last steps, where there is almost no arithmetic, as at the
first: the barrier itself. Under icount on one CPU, 16 threads cost 4,450 instructions per
step more than one, about 278 per thread per step, a signal-wait hand-off's worth (295): at
2 CPUs, 16 threads per VP, that is about 4.5 µs per VP per step at TCG's roughly one
instruction per ns, and the remaining 3 µs or so is cross-CPU or host time not pinned down.
So 1.8 at 16 threads per CPU needs hand-offs about twice as cheap, or fewer per step.
fifo's 1 ms time slices cost too: each end is a timer interrupt,
an upcall and a re-arm, tens of µs under TCG. With slices off (side by side, by hand) 2
threads per CPU gained 4–8% and 1 thread 3–4%, 16 threads nothing measurable; the slices
stay, as they keep threads' shares even across VPs. Moving a thread at a slice's end only
if it was running at the previous one too gained nothing, nor did waiters that spin on ulib's
spin locks without PAUSE. Releasing a barrier's waiters as a tree (each released thread waking half of the rest) did not help,
nor did waking one leader per other VP that wakes the rest of its VP's waiters (5 boots each,
side by side: median 1.70 with it, 1.71 without), nor a barrier whose arrivals take no shared
lock (an atomic count, and a waiting list per VP: 1.74, 1.74, 1.45 against 1.74, 1.74, 1.73,
alternating boots). Points move by about 0.05 between
re-measurements on a quiet host.
With N = 512 (4x the arithmetic per step), three boots per point on a quiet host by hand
(2026-11-24): 1.78–1.84, 1.78, 1.77–1.81, 1.74–1.84 and 1.83–1.86 at 1, 2, 4, 8 and 16
threads per CPU: the barrier's share shrinks, but the points with few threads per CPU lose
about as much (both vCPUs streaming the 2 MB matrix), so the figure keeps N = 256."""
# What the workload table's losses are, found by hand (issue 32); kept
# here beside the table it explains.
WORKLOAD_NOTES = """**Where fifo loses, and why.** Under icount at 1 CPU fifo loses to Linux on two programs,
and neither loss is the thread package's (prio, kthread and naive lose by the same amount, and
the threads' own work, create to join, is a few thousand instructions against tens of millions):
- *wordcount, 1.07×.* Every word is looked up with `memcmp`, which ulib does a byte at a time
  (ulib/string.c); glibc's compares 16 bytes at once. Measured by hand: with an 8-byte-at-a-time
  `memcmp` in ulib (not committed here: ulib's string functions are shared with the kernel), fifo
  takes 62,204,450 instructions, Linux's figure to 0.05%. Plan: word-at-a-time `memcmp`,
  `strlen`, `memchr` and `strstr` in ulib, checked by the libc tests.
- *blackscholes, 1.01×.* The math: programs are built `-fno-builtin` against ulib, so `sqrt` is a
  call into musl's libm where gcc inlines `sqrtsd` for glibc (`objdump -d` of both binaries'
  `work`), and `exp` and `log` are musl's against glibc's. Plan: let programs use the compiler's
  builtins for the math functions that map to one instruction.

fifo is ahead under icount on the programs that synchronize or allocate inside the timed part:
dedup 0.78× (10 threads handing 1,000-odd chunks through three queues), revindex 0.85×
(malloc and realloc of posting lists), canneal 0.89× (striped locks, a barrier per step) and
kmeans 0.94× (threads made every round); where Linux's extra instructions go there was not
profiled.

**The wall runs** are not a fair race on this host: 2 cores shared with four other helpers'
QEMUs (load average 6 to 10 during the run), and the spread between boots of one figure is
often 2–5×. One effect stands out beyond that noise: Linux at 2 CPUs is sometimes much
slower than at 1 (wordcount 1.8 s median against 0.42 s). Counted by hand with `python3 -m
harness linux ... --irqs` (init reports each program's interrupts from /proc/interrupts), the
whole suite at SCALE 4 in one boot each, load 7–8: at -smp 1 no program makes a TLB shootdown
or an IPI; at -smp 2 wordcount made 238 TLB shootdowns and 260 function-call IPIs and took
4,469 ms (117 ms at -smp 1); the other programs made 1–11 shootdowns (revindex 11 with 183
function-call IPIs, dedup 2 with 370) and were within the noise of their -smp 1 times. A
shootdown waits until the other vCPU has run its handler; under MTTCG on an oversubscribed
host that vCPU's thread may first wait for a host core, so the wait is probably mostly the
host's, while the shootdowns themselves are Linux's (from glibc's per-thread arenas and the
threads' mmap'd 384 KiB tables, as far as can be told without a trace). Under TCG
Linux also marks the TSC unstable at -smp 2 and times with the HPET (`tsc=reliable` changed
nothing in 2 boots each)."""
# Psyche's two-minute-warning table: copies -> (warnings off s, warnings on s).
PSYCHE_MPL = {1: (8.5, 8.58), 2: (40.1, 16.0), 3: (61.6, 23.8)}


# --- looking records up ----------------------------------------------------------

class Records:
    def __init__(self, data):
        self.data = data
        self.by = {(r["name"], r["mode"], r["smp"]): r for r in data["records"]}

    def get(self, name, mode, smp=1):
        return self.by.get((name, mode, smp))

    def pkgs(self):
        have = {r["package"] for r in self.data["records"] if r["package"] not in ("kernel", "linux")}
        return [p for p in PKG_ORDER if p in have] + sorted(have - set(PKG_ORDER))

    def matching(self, pattern):
        pat = re.compile(pattern)
        return [r for r in self.data["records"] if pat.search(r["name"])]


def fmt(v, unit):
    if v is None:
        return "—"
    if unit == "instructions":
        return f"{v:,.0f}"
    if unit == "ns":
        return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"
    if unit == "seconds":
        return f"{v:.3f}" if v < 10 else f"{v:.1f}"
    return f"{v:.3g}"


def cell(r, spread=False):
    if r is None:
        return "—"
    s = fmt(r["value"], r["unit"])
    lo, hi = r["spread"]["min"], r["spread"]["max"]
    if spread and r["runs"] > 1 and lo != hi:
        s += f" ({fmt(lo, r['unit'])}–{fmt(hi, r['unit'])})"
    return s


def ratio(a, b):
    if not a or not b or not b["value"]:
        return "—"
    return f"{a['value'] / b['value']:.2f}×"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


# --- sections ------------------------------------------------------------------------

def micro_tables(R, mode):
    pkgs = R.pkgs()
    spread = mode == "wall"
    head = ["operation"] + pkgs + (["kthread / fifo"] if {"kthread", "fifo"} <= set(pkgs) else [])
    if mode == "icount":
        head.append("targets")
    rows = []
    for op, label in MICRO_PKG:
        recs = [R.get(f"{p}.{op}", mode) for p in pkgs]
        row = [label] + [cell(r, spread) for r in recs]
        if "kthread / fifo" in head:
            row.append(ratio(R.get(f"kthread.{op}", mode), R.get(f"fifo.{op}", mode)))
        if mode == "icount":
            row.append("; ".join(t for t in (target(R, f"{p}.{op}", mode, op, p) for p in pkgs) if t))
        rows.append(row)
    krows = []
    for name, label in MICRO_KERNEL:
        r = R.get(name, mode)
        row = [label, cell(r, spread)]
        if mode == "icount":
            row.append(target(R, name, mode, name, "").lstrip())
        krows.append(row)
    khead = ["kernel path", "value"] + (["target"] if mode == "icount" else [])
    return table(head, rows), table(khead, krows)


def target(R, name, mode, op, pkg="fifo"):
    parts = []
    if name in TARGETS:
        r = R.get(name, mode)
        ok = r is not None and r["value"] <= TARGETS[name]
        parts.append(f"{pkg} ≤ {TARGETS[name]} {'✓' if ok else '✗'}")
    if op == "yield" and pkg == "fifo":
        k, f = R.get("kthread.yield", mode), R.get("fifo.yield", mode)
        if k and f:
            parts.append(f"≥ 10× cheaper than kthread {'✓' if k['value'] >= 10 * f['value'] else '✗'}")
    return "; ".join(parts)


def micro_text(data):
    """The icount microbenchmarks as plain text, for the terminal."""
    R = Records(data)
    pkgs = R.pkgs()
    lines = ["", f"{'guest instructions (icount, 1 CPU)':42}" + "".join(f"{p:>10}" for p in pkgs)]
    for op, label in MICRO_PKG:
        vals = [R.get(f"{p}.{op}", "icount") for p in pkgs]
        lines.append(f"  {label[:40]:40}" + "".join(f"{fmt(v['value'], v['unit']) if v else '—':>10}"
                                                  for v in vals))
    for name, label in MICRO_KERNEL:
        r = R.get(name, "icount")
        lines.append(f"  {label[:40]:40}{fmt(r['value'], r['unit']) if r else '—':>10}")
    return "\n".join(lines) + "\n"


def apps_section(R):
    pkgs = [p for p in R.pkgs() if p in ("kthread", "fifo", "naive")]
    rows = []
    for app, (pk, pu) in PSYCHE_APPS.items():
        for mode, smp in (("icount", 1), ("wall", 2)):
            recs = {p: R.get(f"{app}.{p}", mode, smp) for p in pkgs}
            if not any(recs.values()):
                continue
            rows.append([APP_TITLE[app], mode, smp] + [cell(recs[p], mode == "wall") for p in pkgs]
                        + [ratio(recs.get("kthread"), recs.get("fifo")),
                           f"{pk} → {pu}", f"{pk / pu:.2f}×"])
    if not rows:
        return "_No application figures in this run._\n"
    head = ["application", "mode", "CPUs"] + [f"{p} (s)" for p in pkgs] + \
           ["ours: kthread / fifo", "Psyche: kernel → user (s)", "Psyche ratio"]
    return table(head, rows) + "\n"


def speedup_section(R):
    recs = R.matching(r"^speedup\.")
    if not recs:
        return "_No speedup figures in this run._\n", None
    pts = {}
    for r in recs:
        m = re.match(r"^speedup\.([a-z0-9_]+)\.tpp(\d+)$", r["name"])
        if m:
            pts.setdefault((m.group(1), r["smp"]), {})[int(m.group(2))] = r
    tpps = sorted({t for d in pts.values() for t in d})
    order = sorted(pts, key=lambda k: (k[1], PKG_ORDER.index(k[0]) if k[0] in PKG_ORDER else 9))
    rows = [[pkg, smp] + [cell(pts[(pkg, smp)].get(t)) for t in tpps] for pkg, smp in order]
    md = table(["package", "CPUs"] + [f"{t} threads/CPU" for t in tpps], rows) + "\n"
    return md, pts


def mpl_runs(R):
    """The mpl records paired: {(mode, smp, K, pkg): {"off": rec, "on": rec}}."""
    runs = {}
    for r in R.matching(r"^mpl\d+\."):
        m = re.match(r"^mpl(\d+)\.([a-z0-9_]+)\.warn_(on|off)$", r["name"])
        if m:
            runs.setdefault((r["mode"], r["smp"], int(m.group(1)), m.group(2)), {})[m.group(3)] = r
    return runs


def mpl_section(R):
    runs = mpl_runs(R)
    if not runs:
        return "_No two-minute-warning figures in this run._\n"
    order = lambda kv: (kv[0][0] != "icount", kv[0][1], kv[0][2],
                        PKG_ORDER.index(kv[0][3]) if kv[0][3] in PKG_ORDER else 9)
    out, last = [], None
    for (mode, smp, k, pkg), d in sorted(runs.items(), key=order):
        if (mode, smp) != last:
            if last:
                out.append("")
            r0 = d.get("off") or d.get("on")
            g = r0["cmdline"].split("run=mpl,")[1].split()[0].split(",")
            how = ""
            if len(g) > 9 and g[9] == "busy":
                how += "; waiters spin without PAUSE"
            if r0.get("seeds"):
                how += f"; medians over boots with {', '.join(r0['seeds'])} (µs)"
            out += [f"**{mode}, {smp} CPUs** (VPs {g[3]}, threads {g[4] if g[4] != '0' else 'one per VP'} "
                    f"per copy; {g[5]} sections of {g[6]} units, {g[7]} between them{how})", "",
                    "| copies | package | warnings off (s) | warnings on (s) | off / on "
                    "| Psyche off / on (s) | Psyche off / on | sections preempted off / on "
                    "| spin share off / on | warnings honored / given (on) |",
                    "|---|---|---|---|---|---|---|---|---|---|"]
            last = (mode, smp)
        pk = PSYCHE_MPL.get(k)
        out.append(f"| {k} | {pkg} | {cell(d.get('off'), True)} | {cell(d.get('on'), True)} | "
                   f"{ratio(d.get('off'), d.get('on'))} | {f'{pk[0]} / {pk[1]}' if pk else '—'} | "
                   f"{f'{pk[0] / pk[1]:.2f}×' if pk else '—'} | "
                   f"{copies(d.get('off'), 'cs_preempted')} / {copies(d.get('on'), 'cs_preempted')} | "
                   f"{copies(d.get('off'), 'lock_wait_share', '.0%')} / "
                   f"{copies(d.get('on'), 'lock_wait_share', '.0%')} | "
                   f"{copies(d.get('on'), 'warnings_honored')} / {copies(d.get('on'), 'warnings')} |")
    return "\n".join(out) + "\n"


def mpl_goal(R, smp, k=3, pkg="fifo"):
    """fifo's MPL K off / on under icount on `smp` CPUs, as a phrase, with
    sections preempted and spin share off -> on (None if not measured)."""
    d = mpl_runs(R).get(("icount", smp, k, pkg), {})
    if "off" not in d or "on" not in d:
        return None
    return (f"{ratio(d['off'], d['on'])} on {smp} icount CPUs (sections preempted "
            f"{copies(d['off'], 'cs_preempted')} → {copies(d['on'], 'cs_preempted')}, spin share "
            f"{copies(d['off'], 'lock_wait_share', '.0%')} → "
            f"{copies(d['on'], 'lock_wait_share', '.0%')})")


def mpl1_ratios(R, pkg="fifo"):
    """fifo's MPL 1 off / on in the settings with a CPU per VP (not the
    one-CPU icount runs, where a lone copy's VPs share the CPU), as a phrase."""
    one = sorted((mode != "icount", smp, mode, d) for (mode, smp, k, p), d in mpl_runs(R).items()
                 if k == 1 and p == pkg and smp > 1)
    out = [f"{ratio(d.get('off'), d.get('on'))} ({mode}, {smp} CPUs)" for _, smp, mode, d in one]
    return ", ".join(out) or "(not measured)"


def copies(r, key, spec=",.0f"):
    """A count over all K copies (median over boots), or the first boot's
    own figure from a JSON written before all_copies existed."""
    if r is None:
        return "—"
    v = r.get("all_copies", {}).get(key, r.get("guest", {}).get(key) if "all_copies" not in r else None)
    return "—" if v is None or v < 0 else format(v, spec)


def scale_section(R):
    count = [r for r in R.matching(r"^scale\.fifo$")]
    top = [r for r in R.matching(r"^scale\.fifo\.max$")]
    if not count and not top:
        return "_No scale figures in this run._\n"
    out = []
    if count:
        rows = []
        for r in sorted(count, key=lambda r: r["mode"] != "icount"):
            g = r.get("guest", {})
            per = r["value"] * 1e9 if r["unit"] == "seconds" else None
            rows.append([f"{r['mode']}, {r['smp']} CPU", f"{g.get('threads', 0):,}",
                         cell(dict(r, value=per, unit="ns",
                                   spread={k: v * 1e9 for k, v in r["spread"].items()}),
                              r["mode"] == "wall"),
                         f"{g.get('bytes_per_thread', 0):,.0f}", f"{g.get('stack', 0):,}"])
        out += [table(["run", "threads", "ns per thread (create + block + wake + join)",
                       "bytes per thread", "stack (bytes)"], rows),
                "", "Threads are created and each runs until it blocks on one semaphore; "
                "then all are woken and joined. Memory per thread is the kernel's count of free "
                "physical memory before and with every thread blocked.", ""]
    for r in top:
        g = r.get("guest", {})
        out.append(f"Largest number of live fifo threads in a 4 GiB guest: **{r['value']:,.0f}** "
                   f"({g.get('stack', '?')}-byte stacks, {g.get('bytes_per_thread', 0):,.0f} bytes per "
                   f"thread, stopped by {g.get('stopped', '?')}). μThread reached 3.4 × 10^5.")
    return "\n".join(out) + "\n"


def malloc_section(R):
    rows = []
    for mode, smp in (("icount", 1), ("wall", 2)):
        for m in ("cached", "central"):
            one, two = R.get(f"malloc.{m}.vps1", mode, smp), R.get(f"malloc.{m}.vps2", mode, smp)
            if one or two:
                rows.append([f"{mode}, {smp} CPU{'s' if smp > 1 else ''}", m,
                             cell(one, mode == "wall"), cell(two, mode == "wall"), ratio(one, two)])
    if not rows:
        return "_No malloc figures in this run._\n"
    return "\n".join([
        table(["run", "malloc", "1 VP (ns per pair)", "2 VPs (ns per pair)", "1 VP / 2 VPs"], rows), "",
        "4 fifo threads each malloc a block of 16 B to 1 KiB and free one from 16 steps before "
        "(progs/bench/mallocbench.c). `cached` is ulib's malloc; `central` bypasses the per-VP caches, "
        "which is malloc as it was before them: every operation takes its class's spin lock, "
        "which fifo's 1 ms time slice can catch held, leaving the VP's other threads to spin "
        "until the next slice. Under icount 1 ns is one instruction and a locked instruction "
        "counts one, so icount shows the path lengths and that spinning, not the cost of "
        "contended cache lines; the wall figures on 2 host cores are noisy.", ""])


WL_SETTINGS = (("icount", 1, "icount, 1 CPU"), ("wall", 1, "wall, 1 CPU"), ("wall", 2, "wall, 2 CPUs"))


def workload_table(R, order):
    """Program x system: Linux's time, then each package's and its ratio
    to Linux, for each setting; and how many programs meet issue 32's
    goals."""
    names = sorted({r["guest"]["workload"] for r in R.matching(r"^workload\.") if "guest" in r},
                   key=lambda w: order.index(w) if w in order else len(order))
    pkgs = [p for p in ("fifo", "prio", "kthread", "naive")
            if any(R.matching(rf"^workload\.[a-z]+\.{p}$"))]
    def ms(r):
        if not r:
            return "—"
        lo, hi = r["spread"]["min"], r["spread"]["max"]
        spread = f" [{lo / 1e6:.0f}–{hi / 1e6:.0f}]" if r["mode"] == "wall" and r["runs"] > 1 else ""
        return f"{r['value'] / 1e6:.2f}{spread}"
    rows, goals = [], {}
    for w in names:
        for mode, smp, label in WL_SETTINGS:
            lx = R.get(f"workload.{w}.linux", mode, smp)
            recs = [R.get(f"workload.{w}.{p}", mode, smp) for p in pkgs]
            if not lx and not any(recs):
                continue
            row = [w, label, ms(lx)]
            for p, r in zip(pkgs, recs):
                row.append(f"{ms(r)} ({ratio(r, lx)})" if r else "—")
                if r and lx:
                    goals.setdefault((p, mode, smp), []).append(r["value"] / lx["value"])
            rows.append(row)
    return table(["program", "setting", "Linux (NPTL) ms"] + [f"{p} ms (÷ Linux)" for p in pkgs],
                 rows), goals


def workload_section(R, order):
    tab, goals = workload_table(R, order)
    if not goals:
        return "_No workload figures in this run._\n"
    def met(p, mode, smp, bound):
        v = goals.get((p, mode, smp), [])
        return f"{sum(x <= bound for x in v)} of {len(v)}" if v else "not measured"
    wall = [r for r in R.matching(r"^workload\.") if r["mode"] == "wall" and r["spread"]["min"]]
    wide = sum(r["spread"]["max"] / r["spread"]["min"] > 1.5 for r in wall)
    return "\n".join([
        tab, "",
        f"In brackets, wall figures' smallest and largest boot: {wide} of the {len(wall)} wall "
        "figures spread by more than 1.5× between boots, so on this host a wall ratio says "
        "little unless it is far from 1 in the same direction at both CPU counts.", "",
        "Time of each program's parallel part (its own `clock_gettime(CLOCK_MONOTONIC)` around "
        "it; under icount one guest instruction is one ns on both systems, kernel included), "
        "4 threads, median over boots; in parentheses the package's time over Linux's. Linux is "
        "Debian's linux-image-6.1 with glibc's NPTL, the same source built `gcc -O2 -static "
        "-pthread`, booted by the harness in the same QEMU with the same flags "
        "(`python3 -m harness linux`, harness/linux.py); Anima's packages run it through the "
        "POSIX layer with one VP per CPU. Linux's icount boots are not exactly reproducible "
        "(its timer interrupts fall differently; about 0.1% between boots). Wall runs take 4 "
        "times the icount input (SCALE 4, `WL_WALL_SCALE`) and 5 boots.", "",
        f"Issue 32's goals. fifo no slower than Linux under icount at 1 CPU: {met('fifo', 'icount', 1, 1.0)} "
        f"programs; fifo within 5% of Linux at 2 CPUs wall: {met('fifo', 'wall', 2, 1.05)}; kthread "
        f"within 1.2× of Linux under icount: {met('kthread', 'icount', 1, 1.2)}, at 2 CPUs wall: "
        f"{met('kthread', 'wall', 2, 1.2)}.", ""])


def icount_rows(R, cols, need):
    """Rows of a per-package icount table: one per package that has any of
    the records `need` names, [package] + one entry per column. A column is
    a record name ("{p}" stands for the package), shown as its cell, or a
    tuple (num, den, spec): the ratio of two records, formatted by spec."""
    rows = []
    for p in R.pkgs():
        def get(name):
            return R.get(name.format(p=p), "icount")
        if not any(get(n) for n in need):
            continue
        row = [p]
        for c in cols:
            if isinstance(c, tuple):
                a, b = get(c[0]), get(c[1])
                row.append(c[2].format(a["value"] / b["value"]) if a and b and b["value"] else "—")
            else:
                row.append(cell(get(c)))
        rows.append(row)
    return rows


def posix_section(R):
    """Issue 14: pthreads against the thread interface, per package."""
    cols = []
    for op in ("condpingpong", "create_join"):
        n, x = f"native.{{p}}.{op}", f"posix.{{p}}.{op}"
        cols += [n, x, (x, n, "{:.3f}")]
    rows = icount_rows(R, cols, [c for c in cols if isinstance(c, str)])
    if not rows:
        return "_No POSIX-layer figures in this run._\n"
    return "\n".join([
        table(["package", "condpingpong native", "POSIX", "POSIX / native",
               "create_join native", "POSIX", "POSIX / native"], rows), "",
        "Guest instructions (`-icount shift=0`, one CPU, one VP) of one round trip of a "
        "mutex+condition ping-pong between two threads and of creating and joining a null "
        "thread, through `<pthread.h>` and through the interface it is built on (`<sync.h>`, "
        "`struct pkg`'s create, `thread_join`), side by side in one program "
        "(progs/posix/pbench.c; both with TLS on). Issue 14's target: at most 10% more "
        "(docs/posix.md).", ""])


def xspace_section(R):
    """Issue 15: synchronizing across spaces against the same in one space."""
    s, x = "same.{p}.signal_wait", "xspace.{p}.signal_wait"
    rows = icount_rows(R, ["{p}.usem_signal_wait", s, x, (x, s, "{:.2f}×"),
                           "same.{p}.mutex_handoff", "xspace.{p}.mutex_handoff"], [s, x])
    if not rows:
        return "_No cross-space figures in this run._\n"
    f = next((r for r in rows if r[0] == "fifo"), None)
    verdict = ""
    if f and f[4] != "—":
        ok = float(f[4][:-1]) <= 3
        verdict = f" fifo: {f[4]} {'✓' if ok else '✗'}."
    return "\n".join([
        table(["package", "`<sync.h>` usem, one space", "xsem, one space", "xsem, two spaces",
               "two / one", "xmutex hand-off, one space", "two spaces"], rows), "",
        "Guest instructions per operation (`-icount shift=0`, `-smp 1`, kernel and both spaces "
        "included; progs/bench/xbench.c). A signal-wait is half a ping-pong round trip; a "
        "hand-off one unlock-to-lock passage of an `xmutex`. A waiter of an upcall package "
        "parks at user level and a waker of another space routes the wake-up to the waiter's "
        "own runtime (`SYS_seg_wake`, `EV_WAKE`: thread-interface.md); classic packages wait on "
        "the kernel futex. Issue 15's target: fifo's cross-space signal-wait within 3× its "
        f"same-space one.{verdict}", ""])


def xcpu_section(R, sp_pts):
    """Issue 16: cross-CPU wake-ups, hand-offs at -smp 1 and 2, Figure 3's
    2-CPU points against its target."""
    out = []
    w = R.get("wake.cross_cpu_ns", "wall", 2)
    if w:
        g = w.get("guest", {})
        out += [f"Cross-CPU wake-up (progs/bench/xwake.c, wall, 2 CPUs): a futex wake from a busy CPU "
                f"to a VP blocked on a halted one, until the woken VP runs in user mode: median "
                f"**{cell(w, True)} ns** over {w['runs']} boots ({g.get('rounds', '?')} wakes each; "
                f"the first boot's 99th percentile {fmt(g.get('p99_ns'), 'ns')} ns, rounds on one "
                f"CPU {g.get('same_cpu', '?')}). Under -icount the same path is about 1,500 "
                "instructions (test_xcpu.py asserts every wake under 1% of the quantum). Most of the "
                "wall time is QEMU waking the halted vCPU's host thread: with `idlepoll=2000` "
                "(an idle CPU polls its run queues 2 ms before it halts, off by default) one boot "
                "each, by hand on a quiet host (2026-11-24), gave medians of 9.6 µs polling and "
                "29.8 µs halting (minimum 7.3 against 21.3 µs).", ""]
    rows = []
    for p in R.pkgs():
        one, two = R.get(f"wakelat.{p}", "wall", 1), R.get(f"wakelat.{p}", "wall", 2)
        if one or two:
            tgt = ""
            if p == "kthread" and one and two:
                tgt = "≤ 3× ✓" if two["value"] <= 3 * one["value"] else "≤ 3× ✗"
            rows.append([p, cell(one, True), cell(two, True), ratio(two, one), tgt])
    if rows:
        out += [table(["package", "-smp 1, 1 VP (ns)", "-smp 2, 2 VPs (ns)", "2 CPUs / 1 CPU",
                       "target"], rows), "",
                "One signal-wait hand-off (half the median round trip of two threads ping-ponging "
                "through two semaphores, progs/bench/wakelat.c), wall clock, on as many VPs as "
                "CPUs: at -smp 2 a hand-off may cross CPUs (kthread: every thread is a VP).", ""]
    if sp_pts:
        cells = []
        for pkg, want in (("fifo", 1.8), ("kthread", None)):
            d = sp_pts.get((pkg, 2), {})
            if d:
                lo = min(r["value"] for r in d.values())
                cells.append(f"{pkg} at 2 CPUs: lowest point {lo:.2f}"
                             + (f" (target ≥ {want}: {'✓' if lo >= want else '✗'})" if want else ""))
        if cells:
            exp = next((r["experiment"] for (pkg, smp), d in sp_pts.items() if smp == 2
                        for r in d.values()), "")
            when = next((u for u in reversed(R.data["header"].get("updates", []))
                         if exp in u["experiments"]), None)
            src = (f"re-measured {when['date']}" if when else
                   f"from the full run of {R.data['header']['date']} at `{R.data['header']['commit']}`")
            out += ["Figure 3 at 2 CPUs (table below, " + src + "): " + "; ".join(cells) + ".", ""]
    return "\n".join(out) + "\n" if out else "_No cross-CPU figures in this run._\n"


def trace_plot(data):
    """docs/img/trace_mpl2.png from the traced MPL 2 runs, or None."""
    import json
    t = data.get("traces", {}).get("trace.mpl2", {})
    runs = {w: t[w] for w in ("off", "on") if "file" in t.get(w, {})
            and (ROOT / t[w]["file"]).exists()}
    if len(runs) < 2:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ncpu = max(len({e["tid"] for e in json.loads((ROOT / r["file"]).read_text())["traceEvents"]
                    if e.get("cat") == "vp"}) for r in runs.values())
    fig, axes = plt.subplots(2, 1, figsize=(12, 1.6 + 1.5 * ncpu), sharex=True)
    shades = {1: ("tab:blue", "lightsteelblue"), 2: ("tab:orange", "navajowhite")}
    for ax, warn in zip(axes, ("off", "on")):
        evs = json.loads((ROOT / runs[warn]["file"]).read_text())["traceEvents"]
        t0 = min(e["ts"] for e in evs if "ts" in e)
        vps = sorted({(e["args"]["space"], e["args"]["vp"]) for e in evs if e.get("cat") == "vp"})
        for e in evs:
            if e.get("cat") == "vp":
                sp, vp = e["args"]["space"], e["args"]["vp"]
                k = [v for s, v in vps if s == sp].index(vp) % 2
                ax.broken_barh([((e["ts"] - t0) / 1000, e["dur"] / 1000)], (e["tid"] - 0.4, 0.8),
                               color=shades.get(sp, ("grey", "lightgrey"))[k], edgecolor="white",
                               linewidth=0.3)
        for name, mk, col in (("preempt", "x", "red"), ("warn", "v", "green")):
            xs = [(e["ts"] - t0) / 1000 for e in evs if e.get("name") == name]
            ys = [e["tid"] + 0.45 for e in evs if e.get("name") == name]
            ax.scatter(xs, ys, marker=mk, color=col, s=18, zorder=3,
                       label={"preempt": "preempted", "warn": "warning"}[name])
        ax.set_yticks(range(ncpu))
        ax.set_yticklabels([f"CPU {c}" for c in range(ncpu)])
        ax.set_ylim(-0.6, ncpu - 0.2)
        r = runs[warn]
        ax.set_title(f"warnings {warn}: {r['seconds'] * 1000:.1f} ms, {r['preemptions']} preemptions, "
                     f"{r['warnings']} warnings", fontsize=10, loc="left")
        ax.legend(loc="upper right", fontsize=8, ncol=2)
    axes[-1].set_xlabel("ms since the first traced event (guest instructions / 10^6 under icount; "
                        "blue: copy 1's two VPs, orange: copy 2's)")
    fig.tight_layout()
    IMG.mkdir(parents=True, exist_ok=True)
    fig.savefig(IMG / "trace_mpl2.png", dpi=100)
    plt.close(fig)
    return runs


# --- plots -----------------------------------------------------------------------------

def plots(R, speedup_pts):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    IMG.mkdir(parents=True, exist_ok=True)
    made = []
    pkgs = R.pkgs()
    modes = [m for m in ("icount", "wall")
             if any(R.get(f"{p}.yield", m) for p in pkgs)]
    if modes:
        fig, axes = plt.subplots(1, len(modes), figsize=(6 * len(modes), 4), squeeze=False)
        for ax, mode in zip(axes[0], modes):
            w = 0.8 / max(len(pkgs), 1)
            for i, p in enumerate(pkgs):
                ys = [(R.get(f"{p}.{op}", mode) or {}).get("value", 0) for op, _ in MICRO_PKG]
                ax.bar([x + i * w for x in range(len(MICRO_PKG))], ys, w, label=p, color=COLOR.get(p))
            ax.set_xticks([x + w * (len(pkgs) - 1) / 2 for x in range(len(MICRO_PKG))])
            ax.set_xticklabels(["create+join", "yield", "mutex", "signal-wait"])
            ax.set_yscale("log")
            ax.set_ylabel("guest instructions" if mode == "icount" else "ns (wall clock, TCG)")
            ax.set_title(f"thread operations, 1 CPU, {mode}")
            ax.legend()
        fig.tight_layout()
        fig.savefig(IMG / "micro.png", dpi=100)
        plt.close(fig)
        made.append("micro.png")
    if speedup_pts:
        smps = sorted({smp for _, smp in speedup_pts})
        fig, axes = plt.subplots(1, len(smps), figsize=(4.5 * len(smps), 3.8), squeeze=False, sharey=True)
        for ax, smp in zip(axes[0], smps):
            for pkg in [p for p in PKG_ORDER if (p, smp) in speedup_pts]:
                d = speedup_pts[(pkg, smp)]
                tpps = sorted(d)
                ax.plot(tpps, [d[t]["value"] for t in tpps], marker="o", label=pkg,
                        color=COLOR.get(pkg))
            ax.set_xscale("log", base=2)
            ax.set_xticks(sorted({t for d in speedup_pts.values() for t in d}))
            ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
            ax.set_xlabel("threads per processor")
            ax.set_title(f"-smp {smp} (wall clock)")
            ax.grid(alpha=0.3)
            ax.legend()
        axes[0][0].set_ylabel("speedup over one thread on one VP")
        fig.tight_layout()
        fig.savefig(IMG / "speedup.png", dpi=100)
        plt.close(fig)
        made.append("speedup.png")
    return made


# --- the document ------------------------------------------------------------------------

def render(data):
    R = Records(data)
    h = data["header"]
    sp_md, sp_pts = speedup_section(R)
    made = plots(R, sp_pts)
    ic_pkg, ic_kern = micro_tables(R, "icount")
    wa_pkg, wa_kern = micro_tables(R, "wall")
    repro = [r for r in data["records"] if r.get("experiment") == "micro.icount"]
    same = all(r.get("reproducible") for r in repro)
    boots = max([r["runs"] for r in repro] or [0])
    q = h["qemu"]
    out = [
        "# Results",
        "",
        f"Produced by `make bench` on {h['date']} at commit `{h['commit']}`"
        f"{' (with uncommitted changes)' if h.get('dirty') else ''}, in {h.get('seconds', '?')} s"
        f"{' — QUICK run: microbenchmarks only' if h.get('quick') else ''}. "
        "This file is rendered from `results/latest.json` alone "
        "(`python3 -m harness.experiments --render-only`); do not edit it by hand. "
        "How each figure is measured, and what icount and TCG do not model: "
        "[methodology.md](methodology.md).",
        "",
        f"- Host: {h['machine']['cpu']}, {h['machine']['cores']} cores, {h['machine']['os']}; "
        f"load average (1, 5, 15 min) at start {', '.join(f'{x:.1f}' for x in h['machine']['loadavg_at_start'])}"
        + (f", at end {', '.join(f'{x:.1f}' for x in h['machine']['loadavg_at_end'])}"
           if "loadavg_at_end" in h["machine"] else ""),
        f"- QEMU: {' '.join(q['version']) or '?'}",
        f"- icount runs: `qemu-system-x86_64 {q['flags']['icount']}`",
        f"- wall runs: `qemu-system-x86_64 {q['flags']['wall']}`",
        "- Each figure is the median over boots; ranges in parentheses are the smallest and largest "
        "boot (one-CPU icount figures are identical across boots).",
    ]
    for u in h.get("updates", []):
        line = (f"- Re-measured with `--only` on {u['date']} at commit `{u['commit']}`"
                f"{' (with uncommitted changes)' if u.get('dirty') else ''}: "
                f"{', '.join(f'`{e}`' for e in u['experiments'])}; load average at start "
                f"{', '.join(f'{x:.1f}' for x in u['loadavg_at_start'])}, at end "
                f"{', '.join(f'{x:.1f}' for x in u['loadavg_at_end'])}.")
        for k, why in u.get("discarded", {}).items():
            if k != "values":
                vals = ", ".join(f"{n.split('.', 1)[1]} {v:.3g}" for n, v in u["discarded"].get("values", {}).items())
                line += f" `{k}` was run too and discarded: {why}" + (f" ({vals})." if vals else ".")
        out.append(line)
    load = max([h["machine"]["loadavg_at_start"][0], h["machine"].get("loadavg_at_end", [0])[0]]
               + [max(u["loadavg_at_start"][0], u["loadavg_at_end"][0]) for u in h.get("updates", [])])
    cores = h["machine"]["cores"] or 1
    if load > cores:
        out.append(f"- **The host was busy** (load average up to {load:.1f} on {cores} cores): "
                   "wall-clock figures are noisy; the icount ones are not affected.")
    out += [
        "",
        "## Microbenchmarks",
        "",
        f"### Guest instructions (`-icount shift=0`, one CPU; {boots} boots, "
        f"{'identical' if same else 'NOT identical'})",
        "",
        ic_pkg, "", ic_kern, "",
        "### Wall clock (ns, multi-threaded TCG, one CPU)",
        "",
        "Under TCG a kernel entry, an address-space switch and a TLB flush cost far more than "
        "on hardware relative to plain instructions, so these ratios are QEMU's, not a CPU's.",
        "",
        wa_pkg, "", wa_kern, "",
    ]
    if "micro.png" in made:
        out += ["![thread operations per package](img/micro.png)", ""]
    out += ["### The POSIX layer's cost", "", posix_section(R)]
    out += ["### Across spaces", "", xspace_section(R)]
    out += ["## Psyche's application table", "",
            "Kernel-level threads (`kthread`, every thread a VP) against user-level threads (`fifo`) "
            "on the same CPUs, 16 (gauss) or 32 (sort) threads; time of the parallel part only. "
            "Psyche ran on a BBN Butterfly; compare ratios, not seconds.", "",
            apps_section(R),
            "## Hand-offs across CPUs", "",
            xcpu_section(R, sp_pts),
            KTHREAD_COLLAPSE, "",
            "## Speedup against threads per processor", "",
            "Wall clock under multi-threaded TCG; only 2 host cores exist, so any speedup beyond 2 "
            "is impossible here (methodology.md).", "",
            sp_md, FIFO_SPEEDUP, ""]
    if "speedup.png" in made:
        out += ["![speedup against threads per processor](img/speedup.png)", ""]
    out += ["## The two-minute warning", "",
            "K copies of a program whose threads take spin locks around critical sections, "
            "each copy its own space, sharing the CPUs; preemption warnings off and on. The figure "
            "for K copies is the longest copy's time. `naive` never asks for warnings, so its two "
            "columns are the same configuration: it is what a conventional package gets (its "
            "waiters give up the CPU every 100 spins, ulib/spin.c). The kernel warns a VP only "
            "when another VP is ready for its CPU (kernel/warn.c), so with a CPU per VP (MPL 1 in "
            "Psyche's shape) there are no warnings and nothing to gain or lose. Beside the times: "
            "sections whose holder the kernel preempted, the workers' share of time spent "
            "spinning on the lock (rdtsc), and warnings honored of those given, over all K copies "
            "(medians over boots).", "",
            "Four settings. *icount, 1 CPU*: exact, but even a lone copy's two VPs take turns on "
            "the CPU, so 1 copy loses as much as 3: not Psyche's shape. *icount, 4 CPUs*: "
            "Psyche's shape with instructions as time, 4 VPs per copy, a CPU each at MPL 1 and 12 "
            "VPs on 4 CPUs at MPL 3. Guest time there is the sum of all vCPUs' instructions, so "
            "waiting must execute instructions: waiters spin without PAUSE (QEMU ends a vCPU's "
            "icount turn at one, which made waiting free), and the kernel takes a 10 µs tick "
            "(`tick=`, kernel/cmdline.c) because QEMU gives each vCPU in turn a share of the time "
            "to the next timer deadline: without it a holder's vCPU stood still for long stretches "
            "while its peers spun through theirs, warnings or not. Lock hand-offs under that "
            "interleaving are chaotic (one MPL 1 configuration took 0.16–0.22 s as the tick "
            "moved from 5 to 20 µs), and QEMU switches icount vCPUs partly on host time, so "
            "these runs are not exactly reproducible (the same boot took 0.176 or 0.202 s): each "
            "boot moves the tick and the figure is the median, the counts nearly exact. "
            "*icount, 8 CPUs*: the same with 8 VPs per copy, fifo only, MPL 1 and 3; sections of "
            "1000 units and 3000 between them, so at MPL 1 the lock is wanted twice as often as "
            "one holder can serve it and its waiters spin most of the time, warnings or not. "
            "*wall, 2 CPUs*: Psyche's shape with 2 VPs per copy, on a shared 2-core host (the "
            "header's load): a vCPU the host deschedules stalls its lock's waiters with or "
            "without warnings, and at MPL 1 off and on are the same run, so their ratio is noise.", "",
            "Issue 16's goals, fifo. MPL 1 within 5% of 1.0: no MPL 1 run gets a warning or a "
            "preemption, so warnings change nothing there, and off / on measures the noise: "
            f"{mpl1_ratios(R)} in this run (the icount ones move by more than 5% between runs, "
            "the chaos above). MPL 3 at least Psyche's "
            f"2.59×: not met, {mpl_goal(R, 4) or '(not measured)'}, and "
            f"{mpl_goal(R, 8) or '(not measured)'}. Without warnings a copy loses the time its running peers spin while its "
            "holder waits for a CPU; the holder's own turns still work, so off / on stays below "
            "about the number of VPs per copy (2× with the 2 VPs that 2 CPUs allow at MPL 1, why "
            "the wall runs cannot reach 2.59×), and in practice it is the chance a preemption "
            "catches the holder times how long it then waits: off ≈ on / (1 − spin share). More "
            "contention gives more, not enough (sections of 1500 units, 6000 between, medians over "
            "the same three ticks: 1.07×, 1.57×, 1.64× at MPL 1, 2, 3; spin share 44% → 4% at "
            "MPL 3); 8 VPs on 8 CPUs at low "
            "contention gave 1.15× and 1.18× (progs/bench/mpl.c), at high contention the most "
            "(the 8-CPU table: twice the VPs per copy, room for twice the gain). naive stays at 1.0× at every "
            "MPL. It is also faster than fifo with warnings on 4 icount CPUs, at MPL 1 as well, "
            "where neither is warned or preempted: its waiters' system calls may end their vCPUs' "
            "turns as a PAUSE does (a timer re-armed), which would make its waiting cheaper in "
            "this model than on hardware; not verified.", "",
            "The wall MPL 1 runs are bimodal (fifo 0.150 or 0.32 s, warnings off and on). Not "
            "the kernel's placement: in the slow runs with warnings on the kernel gave no warning "
            "and preempted nothing, which it would have had a VP waited on any CPU's queue "
            "(warn_contended looks at all), and two workers cannot share a VP (without fifo's "
            "time slices the waiter would spin forever behind its holder). The median spin share "
            "is 48% either way (sections of 800 units, 200 between, 2 threads: the lock is "
            "wanted 160% of the time), so the lock's throughput differs: how fast it changes "
            "hands between two MTTCG vCPUs, which the host sets. A control, alternating boots at "
            "load 6–7: 1 VP doing half the sections (nobody to wait for) took 0.091–0.140 s, "
            "2 VPs doing all of them 0.177–0.383 s, sometimes slower than the work done serially, "
            "with no preemption or warning in any. A wall MPL 1 with less contention would "
            "measure the warning rather than the host; not re-measured here (load 6–12).", "",
            mpl_section(R)]
    tr = trace_plot(data)
    if tr:
        out += ["### A timeline of MPL 2", "",
                "Two copies of mpl (fifo, 2 VPs each, quantum 2 ms) on one CPU under icount "
                "(deterministic, as the icount table above), traced by the kernel (`python3 -m harness trace`; the Chrome trace JSON of each run is "
                f"`{tr['off']['file']}` and `{tr['on']['file']}`, which Perfetto opens). Each bar is "
                "one VP's turn on a CPU. With warnings off, a quantum ends in a preemption (red), "
                "often of a VP whose thread holds the copy's lock, and the copy's other VP spins "
                "through its own turn; with warnings on, the VP gets the warning (green) and gives "
                "the CPU up at its next unlock, so turns end at section boundaries and no turn is "
                "spent spinning on a preempted holder.", "",
                "![MPL 2 timeline, warnings off and on](img/trace_mpl2.png)", ""]
    from .experiments import WORKLOADS
    out += ["## Workloads beside Linux", "", workload_section(R, WORKLOADS), WORKLOAD_NOTES, ""]
    out += ["## Scale", "", scale_section(R),
            "## malloc across VPs", "", malloc_section(R)]
    if data.get("skipped"):
        out += ["## Not available yet", "",
                "These experiments were not run because their guest programs do not exist yet:", ""]
        out += [f"- `{s['experiment']}`: no `build/progs/{', '.join(s['missing'])}`" for s in data["skipped"]]
        out.append("")
    if data.get("failures"):
        out += ["## Failed runs", ""]
        out += [f"- `{f['experiment']}` run {f['run']}: {f['error'].splitlines()[0]}" for f in data["failures"]]
        out.append("")
    DOC.write_text("\n".join(out) + "\n")
