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
        have = {r["package"] for r in self.data["records"] if r["package"] != "kernel"}
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


def mpl_section(R):
    recs = R.matching(r"^mpl\d+\.")
    if not recs:
        return "_No two-minute-warning figures in this run._\n"
    runs = {}
    for r in recs:
        m = re.match(r"^mpl(\d+)\.([a-z0-9_]+)\.warn_(on|off)$", r["name"])
        if m:
            runs.setdefault((r["mode"], r["smp"], int(m.group(1)), m.group(2)), {})[m.group(3)] = r
    order = lambda kv: (kv[0][0] != "icount", kv[0][1], kv[0][2],
                        PKG_ORDER.index(kv[0][3]) if kv[0][3] in PKG_ORDER else 9)
    out, last = [], None
    for (mode, smp, k, pkg), d in sorted(runs.items(), key=order):
        if (mode, smp) != last:
            if last:
                out.append("")
            g = (d.get("off") or d.get("on"))["cmdline"].split("run=mpl,")[1].split(",")
            out += [f"**{mode}, {smp} CPUs** (VPs {g[3]}, threads {g[4] if g[4] != '0' else 'one per VP'} "
                    f"per copy; {g[5]} sections of {g[6]} units, {g[7]} between them)", "",
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
    for p in h.get("partial", []):       # experiments run again since (--only ... --merge)
        names = sorted({re.sub(r"^(mpl)\d+\.[a-z0-9_]+\.warn_(on|off)", r"\1", k) for k in p["experiments"]})
        out.append(f"- Run again on {p['date']} at commit {p['commit']}{' (dirty)' if p['dirty'] else ''}: "
                   f"{', '.join(f'`{n}`' for n in names)} ({len(p['experiments'])} experiments); "
                   f"load average at start {', '.join(f'{x:.1f}' for x in p['machine']['loadavg_at_start'])}"
                   f", at end {', '.join(f'{x:.1f}' for x in p['machine']['loadavg_at_end'])}.")
    load = max(h["machine"]["loadavg_at_start"][0], h["machine"].get("loadavg_at_end", [0])[0])
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
    out += ["## Psyche's application table", "",
            "Kernel-level threads (`kthread`, every thread a VP) against user-level threads (`fifo`) "
            "on the same CPUs, 16 (gauss) or 32 (sort) threads; time of the parallel part only. "
            "Psyche ran on a BBN Butterfly; compare ratios, not seconds.", "",
            apps_section(R),
            "## Speedup against threads per processor", "",
            "Wall clock under multi-threaded TCG; only 2 host cores exist, so any speedup beyond 2 "
            "is impossible here (methodology.md).", "",
            sp_md]
    if "speedup.png" in made:
        out += ["![speedup against threads per processor](img/speedup.png)", ""]
    out += ["## The two-minute warning", "",
            "K copies of a program whose threads take spin locks around short critical sections, "
            "each copy its own space with 2 VPs, sharing the CPUs; preemption warnings off and on. "
            "The figure for K copies is the longest copy's time. `naive` never asks for warnings, "
            "so its two columns differ only by noise: it is what a conventional package gets. "
            "The kernel warns a VP only when another VP is ready for its CPU (kernel/warn.c), so "
            "at MPL 1 on 2 CPUs (a CPU per VP, Psyche's shape) there are no warnings and nothing "
            "to gain or lose. Beside the times: sections whose holder the kernel preempted, the "
            "share of the workers' time spent spinning on the lock (rdtsc, so including time the "
            "host descheduled them), and warnings honored of those given, over all K copies "
            "(medians over boots). "
            "Under icount the copies share one CPU, where the figures are exact and a holder "
            "preempted inside its section costs its peer a whole quantum of spinning; there even "
            "a lone copy's two VPs take turns, so 1 copy loses as much as 3 (Psyche's MPL 1 had a "
            "processor per VP). Under icount with several CPUs spinning costs no guest time, so "
            "that is not measured (methodology.md). On 2 CPUs with a VP per CPU at MPL 1, a copy "
            "has 2 VPs, so a preempted holder has one peer to spin, not up to 15 as on Psyche's "
            "machine: the peer wastes at most its own CPU time, and the two VPs of a space get "
            "equal shares, so without warnings a copy loses at most about half its CPU and "
            "off / on stays below about 2× (Psyche's 2.51× and 2.59× need more spinners per "
            "holder). Wall-clock figures here also carry the host's load (header): a vCPU the "
            "host deschedules stalls its lock's waiters with or without warnings (sections "
            "stalled in the JSON), and at MPL 1 off and on are the same run (no warnings), so "
            "their ratio is the noise.", "",
            mpl_section(R),
            "## Scale", "", scale_section(R),
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
