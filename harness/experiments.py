"""
`make bench`: boot the guest benchmarks, keep one record per figure in
results/latest.json, and render docs/results.md from it.

    python3 -m harness.experiments                 # everything (make bench)
    python3 -m harness.experiments --quick         # one-CPU icount microbenchmarks only
    python3 -m harness.experiments --render-only   # re-render docs/results.md from the JSON
    python3 -m harness.experiments --only gauss    # experiments whose key contains "gauss"

With --only, the new records replace those of the same experiments in
the existing JSON and the rest are kept; the header lists each such
partial update (date, commit, host load) under "updates".

Each experiment is one entry of `table()`: a kernel command line (usually
`benchseq`, which runs several programs one after another in one boot),
the CPUs, the mode and how many boots. Modes:
  icount  `-icount shift=0`: guest time is instructions (1 instruction = 1
          ns), so figures are deterministic; two boots must agree exactly.
  wall    no icount, multi-threaded TCG: wall-clock time on the host.

A record is the median over boots of what the guest reported, with the
smallest and largest (`spread`), see docs/methodology.md. The guest turns
TSC ticks into time with the TSC rate the kernel calibrated at boot; under
a loaded host that calibration can come out far too high (its window gets
stretched), so wall-mode times are rescaled to a reference rate taken
from all the session's boots (tsc_reference; `tsc_hz` in each record).
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from . import BUILD, ROOT, ioexp, packages, qemu

OUT = ROOT / "results" / "latest.json"
QUICK_OUT = BUILD / "bench-quick.json"
WALL_FLAGS = ("-accel", "tcg,thread=multi")     # also for -smp 1, to say so
TIME_UNITS = ("ns", "seconds")                  # what the TSC rescaling applies to


@dataclass(frozen=True)
class Exp:
    key: str                  # unique; progress lines and the JSON use it
    steps: tuple              # ("PROG ARG ...", ...): run one after another
    smp: int = 1
    mode: str = "icount"      # "icount" or "wall"
    runs: int = 1             # boots; the figure is the median over them
    timeout: float = 300      # seconds per boot
    mem: str = "512M"
    quick: bool = False       # part of `make bench QUICK=1`
    names: str = r".*"        # regex: which @result names are figures
    parallel: tuple = ()      # instead of steps: programs started together, one space each
    knobs: str = ""           # kernel knobs before the run= words, e.g. "quantum=2"
    longest: bool = False     # several records of one name in a boot: keep the largest
    seeds: tuple = ()         # knobs added to boot i: seeds[i % len] (icount boots that differ)
    system: str = "anima"     # or "linux": the steps run on Linux (harness/linux.py)
    exact: bool = True        # icount boots must agree (Linux's do not quite: 0.1%)
    disk_mib: int = 0         # attach harness/ioexp.py's image of a file this big
    post: object = None       # f(@result dicts) -> the dicts to take figures from

    @property
    def progs(self):
        return sorted({s.split()[0] for s in self.steps + self.parallel})

    @property
    def cmdline(self):
        if self.system == "linux":         # init's commands (harness/linux.py)
            return "linux: " + "; ".join(self.steps)
        if self.parallel:
            words = ["run=" + ",".join(s.split()) for s in self.parallel]
        elif len(self.steps) == 1:
            words = ["run=" + ",".join(self.steps[0].split())]
        else:
            words = ["run=benchseq," + ",".join("+".join(s.split()) for s in self.steps)]
        return " ".join(([self.knobs] if self.knobs else []) + words)

    def boot_cmdline(self, index):
        """Boot `index`'s command line: with seeds, each boot perturbs the
        run (e.g. tick=US: where QEMU interleaves icount vCPUs), so icount
        boots that would be identical sample a chaotic quantity."""
        if not self.seeds:
            return self.cmdline
        return f"{self.seeds[index % len(self.seeds)]} {self.cmdline}"



def table(pkgs, quick=False):
    """Every experiment of `make bench`. Add one by appending an Exp.
    quick: the I/O benchmark's QUICK=1 sizes (harness/ioexp.py)."""
    micro = r"^(syscall\.null|upcall\.delivery|upcall\.(block|fault)_roundtrip|[a-z0-9_]+\." \
            r"(yield|create_join|mutex_uncontended|signal_wait))$"
    apps = [p for p in pkgs if p in ("kthread", "fifo", "naive")]
    both = [p for p in apps if p != "naive"]
    t = [
        # The microbenchmarks of issues 3 and 4, every package side by side.
        Exp("micro.icount", ("ubench 1000",) + tuple(f"pkgbench {p}" for p in pkgs),
            mode="icount", runs=2, quick=True, timeout=180, names=micro),
        Exp("micro.wall", ("ubench 1000 wall",) + tuple(f"pkgbench {p} wall" for p in pkgs),
            mode="wall", runs=5, timeout=120, names=micro),
        # The POSIX layer against the interface it is built on (issue 14: at
        # most 10% more instructions), every package, in one program each
        # (progs/posix/pbench.c; docs/posix.md).
        Exp("posix.icount", tuple(f"pbench pkg={p} vps=1" for p in pkgs), mode="icount",
            runs=2, quick=True, timeout=300,
            names=r"^(posix|native)\.[a-z0-9_]+\.(condpingpong|create_join)$"),
        # Synchronizing across spaces (issue 15: fifo's cross-space
        # signal-wait within 3x its same-space one), every package, beside
        # the same operations in one space (progs/bench/xbench.c).
        Exp("xspace.icount", tuple(f"xbench {p}" for p in pkgs), mode="icount",
            runs=2, quick=True, timeout=300,
            names=r"^((same|xspace)\.[a-z0-9_]+\.(signal_wait|mutex_handoff)|[a-z0-9_]+\.usem_signal_wait)$"),
        # prio: how long after a usem_post a level-7 thread runs while level-0
        # spinners hold both VPs (user-level preemption; progs/tests/priotest.c).
        *([Exp("prio.latency.icount", ("priotest latency 2",), mode="icount", runs=2,
               quick=True, timeout=120, names=r"^prio\.latency$")] if "prio" in pkgs else []),
        # Psyche's application table: kernel-level against user-level threads
        # on the same CPUs (16 threads; VPS 0 = one VP per CPU).
        Exp("gauss.icount", tuple(f"gauss {p} 256 16 0" for p in apps),
            mode="icount", runs=2, names=r"^gauss\."),
        Exp("gauss.wall", tuple(f"gauss {p} 256 16 0" for p in apps),
            smp=2, mode="wall", runs=3, names=r"^gauss\."),
        Exp("sort.icount", tuple(f"psort {p} 1048576 32 0" for p in apps),
            mode="icount", runs=2, names=r"^sort\."),
        Exp("sort.wall", tuple(f"psort {p} 1048576 32 0" for p in apps),
            smp=2, mode="wall", runs=3, names=r"^sort\."),
    ]
    # Hand-offs across CPUs (issue 16): a futex wake from a busy CPU to a
    # VP blocked on a halted one (progs/bench/xwake.c), and signal-wait
    # hand-offs between two threads on as many VPs as CPUs, -smp 1 and 2,
    # every package (progs/bench/wakelat.c; kthread: a VP per thread).
    t.append(Exp("wake.wall", ("xwake 500",), smp=2, mode="wall", runs=5,
                 names=r"^wake\.cross_cpu_ns$"))
    for smp in (1, 2):
        t.append(Exp(f"handoff.smp{smp}", tuple(f"wakelat {p} 2000 {smp}" for p in pkgs),
                     smp=smp, mode="wall", runs=5, names=r"^wakelat\."))
    # Psyche's speedup figure: wall clock only (under icount every vCPU
    # shares one instruction clock, so nothing runs in parallel).
    for smp in (1, 2, 4):
        t.append(Exp(f"speedup.smp{smp}",
                     tuple(f"speedup {p} {tpp} 256" for p in both for tpp in (1, 2, 4, 8, 16)),
                     smp=smp, mode="wall", runs=3, timeout=600, names=r"^speedup\."))
    # Psyche's two-minute-warning table: K copies of mpl, each its own
    # space, all started at boot; warnings off and on. Under icount on one
    # CPU (deterministic; with several icount vCPUs a spinning VP costs
    # no guest time, see progs/bench/mpl.c), in wall mode on 2 CPUs.
    # Wall: a VP per CPU at MPL 1 (nothing to preempt, so no warnings),
    # copies sharing the CPUs at MPL 2 and 3; sections 4x the work between
    # them, so a copy whose peer is off its CPU holds the lock most of the
    # time it runs, and the host's noise needs 5 boots.
    for mode, smp, runs, iters, cs, ncs in (("icount", 1, 2, 10000, 400, 400),
                                            ("wall", 2, 5, 60000, 800, 200)):
        for k in (1, 2, 3):
            for p in [p for p in apps if p in ("fifo", "naive")]:
                for warn in ("off", "on"):
                    t.append(mpl_exp(p, k, warn, mode, runs, iters, smp, cs, ncs))
    # Psyche's shape in instructions: 4 icount CPUs, 4 VPs per copy (a CPU
    # each at MPL 1, shared at 2 and 3), waiters spinning without PAUSE
    # (QEMU ends a vCPU's turn at one, which made waiting free) and a 10 us
    # tick so the vCPUs interleave finely against 1000-unit sections
    # (kernel/cmdline.c). Lock handoffs under that interleaving are
    # chaotic (MPL 1, one config: 0.16-0.22 s by tick) and QEMU switches
    # icount vCPUs partly on host time (the same boot: 0.176 or 0.202 s),
    # so each boot perturbs the tick and the figure is the median of
    # MPL4_SEEDS (records carry "seeds", not "reproducible").
    for k in (1, 2, 3):
        for p in [p for p in apps if p in ("fifo", "naive")]:
            for warn in ("off", "on"):
                t.append(mpl4_exp(p, k, warn))
    # The same with 8 VPs per copy on 8 icount CPUs: off / on is bounded
    # by about the VPs per copy (results.md), so twice the VPs leave room
    # for twice the gain. fifo only, MPL 1 and 3 (12 boots, about 70 s
    # in all).
    for k in (1, 3):
        for warn in ("off", "on"):
            t.append(mpl8_exp("fifo", k, warn))
    # malloc across VPs: per-VP caches against the central lists alone
    # (malloc_central_only), 1 and 2 VPs of fifo, 4 threads. icount on one
    # CPU counts the instructions of each path (a locked instruction counts
    # one, so lock contention does not show there); wall on 2 CPUs.
    if "fifo" in pkgs:
        mb = tuple(f"mallocbench {m} {v} 4 {{n}}" for m in ("cached", "central") for v in (1, 2))
        t += [Exp("malloc.icount", tuple(c.format(n=200000) for c in mb), mode="icount",
                  runs=2, names=r"^malloc\."),
              Exp("malloc.wall", tuple(c.format(n=1000000) for c in mb), smp=2, mode="wall",
                  runs=3, names=r"^malloc\.")]
    t += workload_exps(pkgs)
    t += ioexp.io_exps(pkgs, quick)
    t += vmops_exps(pkgs)
    from .detexp import det_exps       # det beside fifo and kthread (issue 33)
    t += det_exps(pkgs)
    # Scale: 100,000 live fifo threads in one space that all block and are
    # woken; then as many as fit in a 4 GiB guest (2 KiB stacks). Wall
    # clock only: under icount the 100,000 take over 5 minutes. The max
    # run's one space may use all the RAM (memquota): the default quota,
    # 3/4 of it per space, would stop it there and measure the policy,
    # not what a thread costs; the kernel's reserve (1/64) still binds.
    if "fifo" in pkgs:
        t += [Exp("scale.count.wall", ("scale count 100000 4080",), mode="wall", runs=3,
                  mem="4G", names=r"^scale\.fifo$"),
              Exp("scale.max", ("scale max 4000000 2032",), mode="wall", mem="4G",
                  timeout=900, knobs="memquota=4096", names=r"^scale\.fifo\.max$")]
    return t


# The suite of progs/workloads/ (Phoenix- and PARSEC-style), each with
# WL_THREADS threads, beside Linux 6.1 with glibc's NPTL in the same QEMU.
WORKLOADS = ("histogram", "linreg", "wordcount", "strmatch", "matmul", "kmeans", "pca",
             "revindex", "blackscholes", "dedup", "canneal")
WL_THREADS = 4
WL_SYSTEMS = ("fifo", "prio", "kthread", "naive")
# Wall runs take 4x the input and 5 boots: at the icount size a program
# runs 10-100 ms, where one host hiccup (2 shared cores) moved a figure 2-5x.
WL_WALL_SCALE = 4


def workload_exps(pkgs):
    """The suite on each package of WL_SYSTEMS and on Linux (records
    workload.PROGRAM.SYSTEM), at 1 CPU under icount and at 1 and 2 CPUs
    wall: one boot runs the whole suite. Linux's icount boots differ by
    about 0.1% (its timers), so they are not held to exactness."""
    t = []
    for mode, smp, runs, sc in (("icount", 1, 2, 1), ("wall", 1, 5, WL_WALL_SCALE),
                                ("wall", 2, 5, WL_WALL_SCALE)):
        for p in [p for p in WL_SYSTEMS if p in pkgs]:
            t.append(Exp(f"workload.{p}.{mode}.smp{smp}",
                         tuple(f"{w} pkg={p} {WL_THREADS} {sc}" for w in WORKLOADS), smp=smp,
                         mode=mode, runs=runs, timeout=600, names=r"^workload\."))
        t.append(Exp(f"workload.linux.{mode}.smp{smp}",
                     tuple(f"{w} {WL_THREADS} {sc}" for w in WORKLOADS),
                     smp=smp, mode=mode, runs=runs, timeout=600, names=r"^workload\.",
                     system="linux", exact=False))
    return t


# PAthreads's claim (issue 32): VM operations (mmap+touch+munmap,
# demand-zero faults, mprotect) from 1, 2, 4 and 8 threads of one space,
# a VP each (kthread), 8 icount CPUs: QEMU's one clock counts every CPU's
# instructions, so ns per op is the machine's instructions per op
# (progs/workloads/vmops.c). Wall at 2 CPUs, 1 and 2 threads, beside
# Linux: only the ratio 2 / 1 of each system means much on this host.
# (Linux at 8 icount CPUs took 13 minutes to boot and run: not here.)
VMOPS_ITERS = 400


def vmops_exps(pkgs):
    if "kthread" not in pkgs:
        return []
    wall = f"{VMOPS_ITERS * 5} map/fault/protect 1 2"
    return [Exp("vmops.icount.smp8", (f"vmops pkg=kthread {VMOPS_ITERS}",), smp=8, mode="icount",
                runs=2, timeout=300, names=r"^vmops\."),
            Exp("vmops.kthread.wall.smp2", (f"vmops pkg=kthread {wall}",), smp=2, mode="wall",
                runs=3, timeout=300, names=r"^vmops\."),
            Exp("vmops.linux.wall.smp2", (f"vmops {wall}",), smp=2, mode="wall", runs=3,
                timeout=300, names=r"^vmops\.", system="linux", exact=False)]


def mpl_exp(pkg, k, warn, mode, runs=1, iters=60000, smp=2, cs=400, ncs=400, vps=2,
            spin="pause", knobs="quantum=2", seeds=()):
    """K copies of progs/bench/mpl.c (quantum 2 ms, VPS VPs and one thread per
    VP per copy, critical sections of CS units of work and NCS units between
    two; waiters spin with PAUSE or busy, without) on `smp` CPUs. Its figure
    is the longest copy."""
    copies = tuple(f"mpl {pkg} {k} {warn} {vps} 0 {iters} {cs} {ncs} {c} {spin}" for c in range(k))
    return Exp(f"mpl{k}.{pkg}.warn_{warn}.{mode}.smp{smp}", (), smp=smp, mode=mode, runs=runs,
               timeout=900, parallel=copies, knobs=knobs, longest=True, seeds=seeds,
               names=rf"^mpl{k}\.")


MPL4_SEEDS = ("tick=7", "tick=10", "tick=13")


def mpl4_exp(pkg, k, warn, seeds=MPL4_SEEDS):
    """The instruction-counted MPL variant of Psyche's shape (table() says why)."""
    return mpl_exp(pkg, k, warn, "icount", len(seeds), iters=3000, smp=4, cs=1000, ncs=6000,
                   vps=4, spin="busy", seeds=seeds)


def mpl8_exp(pkg, k, warn, seeds=MPL4_SEEDS):
    """mpl4_exp with 8 VPs per copy on 8 icount CPUs: sections of 1000
    units, 3000 between them (the lock is wanted twice as often as one
    holder can serve it, so at MPL 1 waiters spin, warnings or not)."""
    return mpl_exp(pkg, k, warn, "icount", len(seeds), iters=3000, smp=8, cs=1000, ncs=3000,
                   vps=8, spin="busy", seeds=seeds)


TRACE_KEY = "trace.mpl2"


def trace_timeline(log=print, iters=4000):
    """The timeline of docs/results.md: one MPL 2 run (two copies of mpl,
    fifo, 2 VPs each, quantum 2 ms) with warnings off and one with them on,
    traced by the kernel (the `trace` word). Under icount on one CPU, as
    the deterministic MPL table: the same picture on any host, however
    loaded (on 2 host cores beside other guests, wall-clock turns stretched
    to 4-12 ms for a 2 ms quantum). Each is kept as Chrome trace JSON,
    results/trace-mpl2-{off,on}.json (open it in Perfetto); the renderer
    draws docs/img/trace_mpl2.png from those."""
    from . import trace
    out = {}
    for warn in ("off", "on"):
        copies = [f"run=mpl,fifo,2,{warn},2,0,{iters},400,400,{c}" for c in range(2)]
        r, head, events = trace.record(["quantum=2"] + copies, smp=1, icount=True, timeout=600)
        times = [x["value"] for x in r.results if str(x.get("name", "")).startswith("mpl2.")]
        if r.kind != "done" or r.status != 0 or len(times) != 2:
            out[warn] = {"error": f"ended as {r.kind}, status {r.status}"}
            log(f"[trace] mpl2 warnings {warn}: FAILED ({r.kind}, status {r.status})")
            continue
        path = ROOT / "results" / f"trace-mpl2-{warn}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(trace.chrome(head, events)) + "\n")
        count = lambda t: sum(e["type"] == t for e in events)
        out[warn] = {"file": str(path.relative_to(ROOT)), "cmdline": r.cmdline,
                     "seconds": max(times), "events": len(events),
                     "overwritten": sum(head["lost"].values()),
                     "preemptions": count("preempt"), "warnings": count("warn"),
                     "dispatches": count("dispatch")}
        log(f"[trace] mpl2 warnings {warn}: {len(events)} events, {max(times):.3f} s")
    return out


# --- running ---------------------------------------------------------------

@dataclass
class Run:
    exp: Exp
    index: int
    kind: str = ""
    status: int | None = None
    elapsed: float = 0.0
    tsc_hz: int | None = None
    figures: list = field(default_factory=list)   # the @result dicts that are figures
    error: str = ""
    result: object = None     # the qemu.Result, console log and all


def missing_progs(exp):
    if exp.system == "linux":
        return [p for p in exp.progs if not list((ROOT / "progs").glob(f"*/{p}.c"))]
    return [p for p in exp.progs + (["benchseq"] if len(exp.steps) > 1 else [])
            if not (BUILD / "progs" / p).is_file()]


def boot_once(exp, index):
    extra = WALL_FLAGS if exp.mode == "wall" and exp.smp == 1 else ()
    if exp.system == "linux":
        return boot_linux(exp, index, extra)
    r = qemu.run(exp.boot_cmdline(index), smp=exp.smp, icount=exp.mode == "icount",
                 timeout=exp.timeout, mem=exp.mem, extra=extra,
                 disk=ioexp.image(exp.disk_mib) if exp.disk_mib else None)
    run = Run(exp, index, r.kind, r.status, r.elapsed, result=r)
    boot = r.events("boot")
    if boot:
        run.tsc_hz = boot[0].get("tsc_hz")
    run.figures, dup = figures(exp.post(r.results) if exp.post else r.results, exp)
    if r.kind != "done" or r.status != 0:
        run.error = f"ended as {r.kind}, status {r.status}\n{r.tail(25)}"
    elif dup:
        run.error = f"{dup} reported twice in one boot\n{r.tail(25)}"
    elif not run.figures:
        run.error = f"reported no figures matching {exp.names!r}\n{r.tail(25)}"
    return run


def boot_linux(exp, index, extra):
    """boot_once for Linux: the steps as init's commands, in one boot."""
    from . import linux
    try:
        r = linux.run(list(exp.steps), smp=exp.smp, icount=exp.mode == "icount",
                      timeout=exp.timeout, mem=exp.mem, extra=extra,
                      disk=ioexp.image(exp.disk_mib) if exp.disk_mib else None)
    except (linux.LinuxUnavailable, RuntimeError, FileNotFoundError) as e:
        return Run(exp, index, "unavailable", error=f"Linux run not possible: {e}")
    run = Run(exp, index, r.kind, r.status, r.elapsed, result=r)
    run.figures, dup = figures(r.results, exp)
    if r.kind != "done" or r.status != 0:
        run.error = f"ended as {r.kind}, status {r.status}\n{r.tail(25)}"
    elif dup or not run.figures:
        run.error = f"reported {dup} twice or no figures\n{r.tail(25)}"
    return run


def figures(results, exp):
    """The @result dicts that are figures of `exp`, and the name of one
    reported twice in the boot (or None). With exp.longest the largest of
    same-named records is the figure (K copies: the workload is done when
    the last copy is)."""
    pat = re.compile(exp.names)
    seen, dup, every = {}, None, {}
    for rec in results:
        if not pat.search(str(rec.get("name", ""))):
            continue
        if not isinstance(rec.get("value"), (int, float)) or "unit" not in rec:
            continue
        every.setdefault(rec["name"], []).append(rec)
        old = seen.get(rec["name"])
        if old is None or (exp.longest and rec["value"] > old["value"]):
            seen[rec["name"]] = rec
        elif not exp.longest:
            dup = rec["name"]
    if exp.longest:       # the counts of all copies, beside the longest copy's own
        seen = {n: dict(r, all_copies=copies_total(every[n])) for n, r in seen.items()}
    return list(seen.values()), dup


# Counts that add up over copies, and shares that average.
SUMMED = ("preemptions", "warnings", "warnings_honored", "warnings_ignored", "warnings_forgiven",
          "probation_quanta", "cs_preempted", "cs_stalled", "long_waits", "warn_deferred")
AVERAGED = ("lock_wait_share",)


def copies_total(recs):
    """What K copies' records say together: counts summed, shares averaged."""
    out = {"copies": len(recs)}
    for k in SUMMED:
        if all(isinstance(r.get(k), (int, float)) for r in recs):
            out[k] = sum(r[k] for r in recs)
    for k in AVERAGED:
        if all(isinstance(r.get(k), (int, float)) for r in recs):
            out[k] = sum(r[k] for r in recs) / len(recs)
    return out


def run_all(exps, jobs=2, log=print):
    """Boot every run of every experiment; icount runs `jobs` at a time
    (their figures do not depend on host load), wall runs one at a time
    and never beside anything of ours."""
    icount = [(e, i) for e in exps if e.mode == "icount" for i in range(e.runs)]
    wall = [(e, i) for e in exps if e.mode == "wall" for i in range(e.runs)]
    total, done, runs = len(icount) + len(wall), [0], []

    def one(ei):
        e, i = ei
        run = boot_once(e, i)
        done[0] += 1
        what = f"{len(run.figures)} figures" if not run.error else "FAILED: " + run.error.splitlines()[0]
        log(f"[{done[0]:2}/{total}] {e.key:26} run {i + 1}/{e.runs}  smp {e.smp} {e.mode:6} "
            f"{run.elapsed:6.1f} s  {what}")
        return run

    with ThreadPoolExecutor(jobs) as ex:
        runs += list(ex.map(one, icount))
    runs += [one(ei) for ei in wall]
    return runs


def tsc_reference(rates):
    """The TSC rate to trust: the median of the lower half of the boots'
    calibrations. Host load stretches a calibration window, so bad
    calibrations come out high (seen: up to +78%); good ones scatter by
    a few tenths of a percent around the true rate."""
    if not rates:
        return None
    low = sorted(rates)[:(len(rates) + 1) // 2]
    return statistics.median(low)


def aggregate(runs):
    """One record per (name, package, smp, mode): medians over boots."""
    tsc_ref = tsc_reference([r.tsc_hz for r in runs if r.exp.mode == "wall" and r.tsc_hz])
    groups = {}
    for run in runs:
        if run.error:
            continue
        for rec in run.figures:
            pkg = rec.get("package", "kernel")
            smp = rec.get("smp", run.exp.smp)
            k = (rec["name"], pkg, smp, run.exp.mode)
            g = groups.setdefault(k, {"exp": run.exp, "recs": [], "vals": [], "tsc": []})
            if g["exp"] is not run.exp:
                raise ValueError(f"{k} is reported by both {g['exp'].key} and {run.exp.key}")
            v = rec["value"]
            if run.exp.mode == "wall" and rec["unit"] in TIME_UNITS and tsc_ref and run.tsc_hz:
                v = v * run.tsc_hz / tsc_ref
            g["recs"].append(rec)
            g["vals"].append(v)
            g["tsc"].append(run.tsc_hz)
    out = []
    for (name, pkg, smp, mode), g in groups.items():
        vals, first = g["vals"], g["recs"][0]
        med = statistics.median(vals)
        if all(isinstance(v, int) for v in vals) and med == int(med):
            med = int(med)
        rec = {"name": name, "package": pkg, "smp": smp, "mode": mode,
               "unit": first["unit"], "value": med,
               "spread": {"min": min(vals), "max": max(vals)},
               "runs": len(vals), "samples": vals,
               "experiment": g["exp"].key, "cmdline": g["exp"].cmdline}
        if mode == "icount" and not g["exp"].exact:
            rec["exact"] = False
        elif mode == "icount" and len(vals) > 1 and not g["exp"].seeds:
            rec["reproducible"] = all(r == first for r in g["recs"])
        elif mode == "icount":
            rec["seeds"] = list(g["exp"].seeds)
        else:
            rec["tsc_hz"] = g["tsc"]
        extra = {k: v for k, v in first.items()
                 if k not in ("name", "package", "unit", "value", "smp", "all_copies")}
        if extra:
            rec["guest"] = extra       # the guest's own fields, from the first boot
        totals = [r["all_copies"] for r in g["recs"] if "all_copies" in r]
        if totals:                     # every copy's counts: the median over boots
            rec["all_copies"] = {k: statistics.median(t[k] for t in totals)
                                 for k in totals[0] if all(k in t for t in totals)}
        out.append(rec)
    return out, tsc_ref


# --- the header ------------------------------------------------------------------

def _cmd(*argv):
    try:
        return subprocess.run(argv, cwd=ROOT, text=True, capture_output=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def tree_state():
    """The commit and whether the tree differs from it, taken before the
    run: the run itself rewrites tracked files (the timeline's JSON)."""
    return {"commit": _cmd("git", "rev-parse", "--short", "HEAD"),
            "dirty": bool(_cmd("git", "status", "--porcelain", "--untracked-files=no"))}


def header(quick, tsc_ref, load0, tree):
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    qemu_bin = os.environ.get("ANIMA_QEMU", "qemu-system-x86_64")
    flags = {}
    for mode in ("icount", "wall"):
        cmd = qemu.command("ANIMA.iso", smp=2, icount=mode == "icount")[1:]
        cmd[cmd.index("-smp") + 1] = "N"        # each record says its smp
        flags[mode] = " ".join(cmd)
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        **tree,
        "quick": quick,
        "machine": {"cpu": cpu or platform.processor(), "cores": os.cpu_count(),
                    "os": platform.platform(), "loadavg_at_start": load0,
                    "loadavg_at_end": os.getloadavg()},
        "qemu": {"binary": qemu_bin, "version": _cmd(qemu_bin, "--version").splitlines()[0:1],
                 "flags": flags},
        "tsc_ref_hz": tsc_ref,
        "spread": "min and max over boots of the rescaled guest figure (value is the median)",
    }


def compare_icount(records, ref_path):
    """Say whether this run's icount figures equal those in ref_path."""
    try:
        ref = json.loads(Path(ref_path).read_text())["records"]
    except (OSError, ValueError, KeyError):
        return
    key = lambda r: (r["name"], r["package"], r["smp"], r["mode"])
    ref = {key(r): r["value"] for r in ref if r["mode"] == "icount"}
    both = [r for r in records if r["mode"] == "icount" and key(r) in ref]
    diff = [f"{r['name']} {ref[key(r)]} -> {r['value']}" for r in both if r["value"] != ref[key(r)]]
    print(f"bench: icount figures against {ref_path}: {len(both) - len(diff)} identical, "
          f"{len(diff)} differ{': ' + '; '.join(diff) if diff else ''}")


def merge(old, new, keys):
    """`new` (a run of the experiments `keys` only) folded into `old`."""
    h = new["header"]
    upd = {"experiments": sorted(keys), "date": h["date"], "commit": h["commit"],
           "dirty": h["dirty"], "seconds": h["seconds"],
           "loadavg_at_start": h["machine"]["loadavg_at_start"],
           "loadavg_at_end": h["machine"]["loadavg_at_end"]}
    out = dict(old)
    out["header"] = dict(old["header"], updates=old["header"].get("updates", []) + [upd])
    keep = lambda xs, f: [x for x in xs if x[f] not in keys]
    out["experiments"] = keep(old["experiments"], "key") + new["experiments"]
    out["records"] = keep(old["records"], "experiment") + new["records"]
    out["skipped"] = keep(old.get("skipped", []), "experiment") + new["skipped"]
    out["failures"] = keep(old.get("failures", []), "experiment") + new["failures"]
    if "traces" in new:
        out["traces"] = dict(old.get("traces", {}), **new["traces"])
        upd["experiments"].append(TRACE_KEY)
    return out


# --- the command -------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m harness.experiments")
    ap.add_argument("--quick", action="store_true", help="one-CPU icount microbenchmarks only")
    ap.add_argument("--render-only", action="store_true", help="render docs/results.md from the JSON")
    ap.add_argument("--only", action="append", default=[], help="experiments whose key contains this")
    ap.add_argument("--out", help="the JSON to write (default results/latest.json, "
                    "build/bench-quick.json with --quick)")
    ap.add_argument("--jobs", type=int, default=2, help="icount boots at once")
    a = ap.parse_args(argv)
    from . import experiments_report as report
    out = Path(a.out).resolve() if a.out else QUICK_OUT if a.quick else OUT
    if a.render_only:
        report.render(json.loads(open(out).read()))
        print(f"rendered {report.DOC} from {out}")
        return 0

    t0, load0, tree = time.monotonic(), os.getloadavg(), tree_state()
    exps = [e for e in table(packages(), a.quick) if (e.quick or not a.quick)
            and (not a.only or any(o in e.key for o in a.only))]
    skipped, todo = [], []
    for e in exps:
        miss = missing_progs(e)
        if miss:
            skipped.append({"experiment": e.key, "missing": miss})
            print(f"[skip] {e.key:26} not available yet: no build/progs/{', '.join(miss)}")
        else:
            todo.append(e)
    print(f"bench: {sum(e.runs for e in todo)} boots in {len(todo)} experiments"
          f"{' (QUICK)' if a.quick else ''}")
    runs = run_all(todo, a.jobs)
    traces = None
    if not a.quick and (not a.only or any(o in TRACE_KEY for o in a.only)):
        traces = trace_timeline()
    records, tsc_ref = aggregate(runs)
    failures = [{"experiment": r.exp.key, "run": r.index + 1, "error": r.error} for r in runs if r.error]
    data = {"header": header(a.quick, tsc_ref, load0, tree) | {"seconds": round(time.monotonic() - t0, 1)},
            "experiments": [{"key": e.key, "cmdline": e.cmdline, "smp": e.smp, "mode": e.mode,
                             "runs": e.runs, "mem": e.mem} for e in todo],
            "records": records, "skipped": skipped, "failures": failures}
    if traces is not None:
        data["traces"] = {TRACE_KEY: traces}
    if a.only and not a.quick and out.exists():
        data = merge(json.loads(out.read_text()), data, {e.key for e in todo})
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1) + "\n")
    print(report.micro_text(data))
    if out != OUT:
        compare_icount(records, OUT)
    for r in records:
        if r.get("reproducible") is False:
            print(f"bench: {r['name']} differs between icount boots: {r['samples']}")
    if not a.quick:
        report.render(data)
        print(f"bench: wrote {out} and {report.DOC}")
    else:
        print(f"bench: wrote {out}")
    print(f"bench: {data['header']['seconds']} s, {len(failures)} failed runs, "
          f"{len(skipped)} experiments not available")
    bad = failures or any(r.get("reproducible") is False for r in records)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
