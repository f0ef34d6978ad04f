"""
Render docs/results.md and its plots (docs/img/*.png) from the JSON that
harness/experiments.py writes, and nothing else: rendering can be redone
without measuring again (`python3 -m harness.experiments --render-only`).

Psyche's figures (Marsh, LeBlanc, Scott, Markatos, SOSP '91) and the
targets of the issues are the only numbers written here by hand.
"""
import re

from . import PKG_ORDER, ROOT, SPECIAL, detreport, ioreport

DOC = ROOT / "docs" / "results.md"
IMG = ROOT / "docs" / "img"
COLOR = {"kthread": "tab:blue", "fifo": "tab:orange", "naive": "tab:green", "tutor": "tab:red",
         "prio": "tab:purple"}

MICRO_PKG = [("create_join", "null thread (create, run, exit, join)"),
             ("yield", "yield"),
             ("mutex_uncontended", "mutex lock + unlock, uncontended"),
             ("signal_wait", "signal-wait hand-off (half a ping-pong)")]
MICRO_KERNEL = [("syscall.null", "null syscall"),
                ("upcall.delivery", "upcall delivery (signal to handler and back)"),
                ("upcall.block_roundtrip", "BLOCKED + UNBLOCKED round trip, zero-latency I/O"),
                ("upcall.fault_roundtrip", "page-fault BLOCKED + UNBLOCKED round trip (the page there at once)")]
# Targets from the issues, in guest instructions (icount).
# Issue 17: fifo yield <= 55, signal-wait <= 296, create+join <= 400 (tuned
# Argobots: 404); prio yield <= 120, create+join <= 600.
TARGETS = {"fifo.yield": 55, "fifo.mutex_uncontended": 30, "fifo.create_join": 400,
           "fifo.signal_wait": 296, "prio.yield": 120, "prio.create_join": 600,
           "upcall.delivery": 500}
# Psyche's application table: (kernel-level s, user-level s).
PSYCHE_APPS = {"gauss": (33.8, 22.0), "sort": (44.3, 27.1)}
APP_TITLE = {"gauss": "Gaussian elimination, 256 x 256", "sort": "parallel sort, 2^20 keys"}
# The prose of docs/results.md is harness/templates/results.md.in (a
# str.format template; `%% NAME` starts an optional block); render()
# fills in the figures.
TEMPLATE = ROOT / "harness" / "templates" / "results.md.in"
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
        have = {r["package"] for r in self.data["records"]
                if r["package"] not in ("kernel", "linux", "detpar") + SPECIAL}   # (det=par: det's)
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
        if "desc_bytes" in g:
            out += ["", scale_breakdown(g, r.get("cmdline", ""))]
    return "\n".join(out) + "\n"


def scale_breakdown(g, cmdline):
    """Where the max run's bytes per thread go, as progs/bench/scale.c
    reports them."""
    rest = g["stack_block_bytes"] - g["stack"] - g["tls_bytes"] - g["malloc_bytes"]
    rows = [["descriptor (`struct uthread`, exact-size slabs: ulib/rt/desc.c)", f"{g['desc_bytes']:,}"],
            ["stack", f"{g['stack']:,}"],
            ["TLS block and TCB (none: the program has no TLS)" if not g["tls_bytes"]
             else "TLS block and TCB", f"{g['tls_bytes']:,}"],
            ["malloc header and size-class rounding of the stack's block",
             f"{g['malloc_bytes'] + rest:,}"],
            ["the program's pointer to the thread", f"{g['pointer_bytes']:,}"],
            ["kernel: page tables mapping the above (a fifo thread has no kernel object); "
             "slab tails", f"{g['other_bytes']:,.1f}"],
            ["**total** (free memory before − with all blocked, / threads)",
             f"**{g['bytes_per_thread']:,.1f}**"]]
    quota = next((w for w in cmdline.split() if w.startswith("memquota=")), None)
    stop = (f"its space's quota raised to the RAM ({quota}), the run stops at the kernel's "
            "reserve (1/64 of memory)" if quota else
            "the run stops at its space's quota (3/4 of RAM by default)")
    return "\n".join([table(["per thread", "bytes"], rows), "",
                      "Every part but the last two rows is a size the program reads (its @result "
                      "line); the kernel's share is what is left of the measured total. With "
                      f"{stop}, {g['mem_free_peak'] / 2**20:,.0f} MiB still free."])


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
        "thread, through `<pthread.h>` and through the interface it is built on (`<animart/sync.h>`, "
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
        table(["package", "`<animart/sync.h>` usem, one space", "xsem, one space", "xsem, two spaces",
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

def template():
    """The template's blocks: "main", then each `%% NAME` block."""
    parts = re.split(r"\n%% (\w+)\n", TEMPLATE.read_text())
    return {"main": parts[0], **dict(zip(parts[1::2], parts[2::2]))}


def lines(ls):
    return "".join(f"{l}\n" for l in ls)


def header_lines(h):
    """The header's optional lines: --only updates, a busy host."""
    out = []
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
    return out


def tail_lines(data):
    out = []
    if data.get("skipped"):
        out += ["## Not available yet", "",
                "These experiments were not run because their guest programs do not exist yet:", ""]
        out += [f"- `{s['experiment']}`: no `build/progs/{', '.join(s['missing'])}`" for s in data["skipped"]]
        out.append("")
    if data.get("failures"):
        out += ["## Failed runs", ""]
        out += [f"- `{f['experiment']}` run {f['run']}: {f['error'].splitlines()[0]}" for f in data["failures"]]
        out.append("")
    return out


VMOPS = ("map", "fault", "protect")


def waits(r):
    g = (r or {}).get("guest", {})
    return "/".join(str(g[k]) for k in ("waits_space", "waits_kop", "waits_pmm")) \
        if "waits_space" in g else "—"


def vmops_section(R):
    """Instructions per VM operation against threads (a VP each) under
    icount at 8 CPUs, the ratio to one thread; then wall at 2 CPUs beside
    Linux, ratios 2 threads / 1."""
    rows = []
    for op in VMOPS:
        recs = [R.get(f"vmops.{op}.t{n}.kthread", "icount", 8) for n in (1, 2, 4, 8)]
        if any(recs):
            rows.append([op] + [f"{cell(r)} ({ratio(r, recs[0])})" if r else "—" for r in recs]
                        + [waits(recs[-1])])
    wall = []
    for op in VMOPS:
        a = [R.get(f"vmops.{op}.t{n}.kthread", "wall", 2) for n in (1, 2)]
        lx = [R.get(f"vmops.{op}.t{n}.linux", "wall", 2) for n in (1, 2)]
        if any(a + lx):
            wall.append([op, cell(a[0], True), cell(a[1], True), ratio(a[1], a[0]), waits(a[1]),
                         cell(lx[0], True), cell(lx[1], True), ratio(lx[1], lx[0])])
    if not rows and not wall:
        return "_No VM-operation figures in this run._\n"
    return "\n".join([
        table(["operation", "1 VP", "2 VPs", "4 VPs", "8 VPs", "lock waits at 8 VPs"], rows), "",
        "Guest instructions per operation (in parentheses: over one VP's), kthread, a VP per "
        "thread, 8 CPUs under icount, where QEMU's one clock counts the instructions of every "
        "CPU, so a CPU spinning or taking a shootdown IPI adds to the figure and an idle one "
        "does not (progs/workloads/vmops.c: `map` is mmap of 4 pages, a write to each, munmap; "
        "`fault` a write to the next untouched page of a `MAP_NORESERVE` region of the "
        "thread's own; `protect` an mprotect of a page of its own, read-only and back). Issue "
        "32's bound is 1.3× at 8 VPs (`test_vmops.py`). Lock waits: how often the run "
        "found the space's memory lock / kop_lock / the page allocator's lock held "
        "(`INFO_LOCK_WAITS`, first boot; thread creation and joins included). Under icount "
        "a PAUSE ends a vCPU's turn and each vCPU runs long turns, so a lock holder is "
        "rarely caught and a spinning CPU costs few instructions: what the 8-VP figures add "
        "is mostly TLB-shootdown IPIs (every munmap, every mprotect that takes access away, "
        "to each CPU running the space), not lock spinning.", "",
        table(["operation", "Anima 1 thread ns/op", "2 threads", "2 / 1", "lock waits (2)",
               "Linux 1 thread ns/op", "2 threads", "2 / 1"], wall), "",
        "The same at 2 CPUs, wall clock, 5 times the operations, kthread and Linux 6.1 "
        "(NPTL), median of 3 boots (smallest–largest in brackets). Every munmap, and every "
        "mprotect that takes access away, interrupts the other CPU and waits for it: on 2 "
        "shared host cores that wait is the host's scheduling of the other vCPU's thread, so "
        "only a ratio far from 1 says something. Here map and mprotect from 2 threads are far "
        "from 1 on Anima, and lock waits say why in part: a waiter on the space's lock spins "
        "(interrupts off) and a shootdown waits, spinning, for every CPU that runs the space, "
        "user mode included, so each cross-CPU dependency costs a host time slice whenever the "
        "host has descheduled the other vCPU. Why Linux loses less is our reading, not "
        "measured here: a waiter on its `mmap_lock` spins only while the holder runs, then "
        "sleeps, and a CPU gone idle (lazy TLB) takes no flush IPI. Faults, which take the space's lock briefly and need "
        "no shootdown, stay near 1 on Anima.", ""])


def render(data):
    from .experiments import WORKLOADS
    R = Records(data)
    h = data["header"]
    sp_md, sp_pts = speedup_section(R)
    made = plots(R, sp_pts)
    ic_pkg, ic_kern = micro_tables(R, "icount")
    wa_pkg, wa_kern = micro_tables(R, "wall")
    repro = [r for r in data["records"] if r.get("experiment") == "micro.icount"]
    q, m, t = h["qemu"], h["machine"], template()
    tr = trace_plot(data)
    host = (f"{m['cpu']}, {m['cores']} cores, {m['os']}; load average (1, 5, 15 min) at start "
            f"{', '.join(f'{x:.1f}' for x in m['loadavg_at_start'])}"
            + (f", at end {', '.join(f'{x:.1f}' for x in m['loadavg_at_end'])}"
               if "loadavg_at_end" in m else ""))
    v = {"date": h["date"], "commit": h["commit"], "seconds": h.get("seconds", "?"),
         "dirty": " (with uncommitted changes)" if h.get("dirty") else "",
         "quick": " — QUICK run: microbenchmarks only" if h.get("quick") else "",
         "host": host, "qemu_version": " ".join(q["version"]) or "?",
         "icount_flags": q["flags"]["icount"], "wall_flags": q["flags"]["wall"],
         "updates": lines(header_lines(h)),
         "boots": max([r["runs"] for r in repro] or [0]),
         "identical": "identical" if all(r.get("reproducible") for r in repro) else "NOT identical",
         "icount_pkg": ic_pkg, "icount_kernel": ic_kern, "wall_pkg": wa_pkg, "wall_kernel": wa_kern,
         "micro_img": "![thread operations per package](img/micro.png)\n\n" if "micro.png" in made else "",
         "posix": posix_section(R), "xspace": xspace_section(R), "apps": apps_section(R),
         "xcpu": xcpu_section(R, sp_pts), "speedup": sp_md,
         "speedup_img": ("![speedup against threads per processor](img/speedup.png)\n\n"
                         if "speedup.png" in made else ""),
         "mpl1_ratios": mpl1_ratios(R), "mpl_goal4": mpl_goal(R, 4) or "(not measured)",
         "mpl_goal8": mpl_goal(R, 8) or "(not measured)", "mpl": mpl_section(R),
         "trace": t["trace"].format(trace_off=tr["off"]["file"], trace_on=tr["on"]["file"]) if tr else "",
         "workload": workload_section(R, WORKLOADS),
         "io": ioreport.io_section(R), "det": detreport.det_section(R, detreport.plot(R, IMG)),
         "scale": scale_section(R), "malloc": malloc_section(R), "vmops": vmops_section(R),
         "tail": lines(tail_lines(data))}
    DOC.write_text(t["main"].format_map(v))
