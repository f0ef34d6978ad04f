"""
det beside fifo and kthread on the workload suite (issue 33, DTHREADS's
Figure 4 and Table 1), as experiments of `make bench`:

  detbench.icount.smp1.{a,b}  1 CPU under icount: each program on fifo,
        det, det par (`pkg=det det=par`: DTHREADS's parallel phase) and
        kthread, one after another in one boot (deterministic
        instruction counts; two boots must agree).
  detbench.wall.smp2.{a,b}  2 CPUs, multi-threaded TCG, wall clock, the
        input WL_WALL_SCALE times larger: each program on fifo, det, det
        par and kthread back to back in one boot, so the ratios to fifo
        are taken within a boot (both sides under the same
        host load) and the figure is their median over boots.
(a and b: each half of the programs.)

The programs are the suite of progs/workloads/ and linreg_fs, linreg with
its per-thread sums adjacent in memory (`linreg -f`: DTHREADS's false
sharing case). Each boot's @result lines go through `pair()`: a program's
record is renamed detbench.PROGRAM.PACKAGE (so it never clashes with the
workload experiments' records), det's own `det.stats` line (printed at
exit, after the program's record) is attached to its record as "det",
and the per-boot figures are added: detbench.PROGRAM.det_over_fifo,
.detpar_over_fifo and .kthread_over_fifo (unit "x"), and, when det
reports serial_ns and parallel_ns, detbench.PROGRAM.det.serial_share
(.detpar.serial_share). det par's program prints package "det" as plain
det's does; its det.stats line says mode "par", and its record is
renamed detbench.PROGRAM.detpar, package "detpar".
"""
import os

from .experiments import WL_THREADS, WL_WALL_SCALE, WORKLOADS, Exp

# Phoenix's eight, the goal's denominator; then the rest.
PHOENIX = ("histogram", "linreg", "wordcount", "strmatch", "matmul", "kmeans", "pca", "revindex")
FALSE_SHARING = "linreg_fs"
PROGRAMS = WORKLOADS + (FALSE_SHARING,)
PKGS = ("fifo", "det", "detpar", "kthread")
DETS = ("det", "detpar")          # the packages det.stats lines belong to
# Not run on det par: canneal's ~200,000 lock operations are a fence
# each (a trip of the token through every thread), and at scale 1 it
# ran past 140 s of guest time under icount without ending.
SKIP = {("canneal", "detpar")}
# Boots of each wall experiment (DETBENCH_RUNS=N for fewer, by hand).
WALL_RUNS = int(os.environ.get("DETBENCH_RUNS", "5"))
# det.stats keys reported per program ("—" where det does not print them).
STATS = ("moves", "tx", "commit_pages", "serial_ns", "parallel_ns")


def command(prog, pkg, threads=WL_THREADS, scale=1):
    """One program's step: linreg_fs is `linreg -f`; detpar is det with
    its parallel phase."""
    if pkg == "detpar":
        pkg = "det det=par"
    if prog == FALSE_SHARING:
        return f"linreg pkg={pkg} -f {threads} {scale}"
    return f"{prog} pkg={pkg} {threads} {scale}"


def steps(progs, pkgs, scale=1):
    return tuple(command(w, p, scale=scale) for w in progs for p in pkgs
                 if (w, p) not in SKIP)


def det_exps(pkgs):
    """The experiments, if fifo is built (det is SPECIAL: not in pkgs),
    each in two halves of the programs: a kernel command line holds at
    most MAX_ARGS (32) words, and benchseq's words past that were
    dropped without a word. The icount ones are part of QUICK=1 too:
    four boots of about 3 s."""
    if "fifo" not in pkgs:
        return []
    both = [p for p in PKGS if p in pkgs or p in DETS]
    half = (len(PROGRAMS) + 1) // 2
    t = []
    for part, progs in (("a", PROGRAMS[:half]), ("b", PROGRAMS[half:])):
        t += [Exp(f"detbench.icount.smp1.{part}", steps(progs, both), mode="icount", runs=2,
                  quick=True, timeout=300, names=r"^detbench\.", post=pair),
              Exp(f"detbench.wall.smp2.{part}", steps(progs, both, WL_WALL_SCALE), smp=2,
                  mode="wall", runs=WALL_RUNS, timeout=900, names=r"^detbench\.", post=pair)]
    return t


def pair(results):
    """A boot's @result dicts as the experiments' figures (module doc)."""
    out, last = [], None
    for rec in results:
        name = str(rec.get("name", ""))
        if name.startswith("workload.") and "workload" in rec and "package" in rec:
            last = dict(rec, name=f"detbench.{rec['workload']}.{rec['package']}")
            out.append(last)
        elif name == "det.stats" and last is not None and last["package"] == "det" \
                and "det" not in last:
            last["det"] = {k: v for k, v in rec.items() if k != "name"}
            if rec.get("mode") == "par":
                last.update(name=f"detbench.{last['workload']}.detpar", package="detpar")
        elif name == "det.heap" and last is not None and last["package"] == "detpar":
            last["det"].update({f"heap_{k}": v for k, v in rec.items() if k != "name"})
    by = {(r["workload"], r["package"]): r for r in out}
    for (w, p), rec in list(by.items()):
        fifo = by.get((w, "fifo"))
        if p != "fifo" and fifo and fifo["value"] and rec.get("check") == "ok":
            out.append({"name": f"detbench.{w}.{p}_over_fifo", "package": p, "workload": w,
                        "unit": "x", "value": rec["value"] / fifo["value"]})
        share = serial_share(rec.get("det", {}))
        if share is not None:
            out.append({"name": f"detbench.{w}.{p}.serial_share", "package": p,
                        "workload": w, "unit": "share", "value": share})
    return out


def serial_share(stats):
    """serial_ns / (serial_ns + parallel_ns), or None if det did not say."""
    s, p = stats.get("serial_ns"), stats.get("parallel_ns")
    if not isinstance(s, (int, float)) or not isinstance(p, (int, float)) or s + p <= 0:
        return None
    return s / (s + p)


def same_output(a, b):
    """The fields of two records of one program that do not measure time
    or name the package, and whether they are equal: det's answer is
    fifo's."""
    skip = {"name", "package", "value", "ns", "det"}
    fa = {k: v for k, v in a.items() if k not in skip}
    fb = {k: v for k, v in b.items() if k not in skip}
    return fa == fb, fa, fb
