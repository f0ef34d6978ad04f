"""
The fast subset of `make bench`: relations between figures that must hold
with margin in a single run, never absolute figures. Everything here runs
under -icount, so each assertion is about guest instructions and is
deterministic; the two boots of each test run side by side.
"""
import statistics
from concurrent.futures import ThreadPoolExecutor

from harness import packages
from harness.experiments import MPL4_SEEDS, Exp, boot_once, mpl4_exp, mpl_exp, table


def boot_pair(exps, request):
    """Boot experiments (or one twice) side by side; fail on any error."""
    with ThreadPoolExecutor(2) as ex:
        runs = list(ex.map(lambda ei: boot_once(*ei), exps))
    request.node.anima_runs = [r.result for r in runs]
    for r in runs:
        assert not r.error, f"{r.exp.key}: {r.error}"
    return runs


def micro_figures(run):
    return {f["name"]: f["value"] for f in run.figures}


def test_micro_icount_reproducible_and_fifo_cheaper(built, request):
    # Every icount microbenchmark, booted twice side by side.
    exp = next(e for e in table(packages()) if e.key == "micro.icount")
    r1, r2 = boot_pair([(exp, 0), (exp, 1)], request)
    a, b = (sorted(r.figures, key=lambda f: f["name"]) for r in (r1, r2))
    assert [f["name"] for f in a] == [f["name"] for f in b]
    assert a == b, "two icount boots of the same binaries differ"
    v = micro_figures(r1)
    assert v["kthread.create_join"] >= 10 * v["fifo.create_join"], v
    assert v["kthread.signal_wait"] >= 3 * v["fifo.signal_wait"], v


def test_fifo_yield_10x_cheaper_than_kthread(built, request):
    exp = Exp("yield", ("pkgbench kthread", "pkgbench fifo"), mode="icount", names=r"\.yield$")
    (run,) = boot_pair([(exp, 0)], request)
    v = micro_figures(run)
    assert v["kthread.yield"] >= 10 * v["fifo.yield"], v


def test_mpl3_warnings_on_faster_than_off(built, request):
    # The bench's icount run at MPL 3: 3 copies of 2 VPs on one CPU,
    # quantum 2 ms; the longest copy is the figure. One CPU because under
    # icount with several vCPUs spinning costs no guest time (progs/bench/mpl.c);
    # here a holder preempted inside its section costs its peer a whole
    # quantum of spinning, which the warning avoids. Deterministic: the
    # figures and counts are guest instructions. 5,000 iterations (were
    # 10,000: the "off" boot was 4 s of CPU, now 1.7): preempted sections
    # 30 off, 3 on (the start), times 0.146 and 0.097 s, ratios 10 and
    # 1.50 against the 4 and 1.2 asked, the same in every run.
    off, on = (mpl_exp("fifo", 3, w, "icount", iters=5000, smp=1) for w in ("off", "on"))
    r_off, r_on = boot_pair([(off, 0), (on, 0)], request)
    # The mechanism first: without warnings holders are preempted inside
    # their sections (all copies' counts); with them (almost) never.
    pre_off, pre_on = (sum(d["cs_preempted"] for d in r.result.results
                           if d["name"].startswith("mpl")) for r in (r_off, r_on))
    assert pre_on * 4 <= pre_off, f"sections preempted: off {pre_off}, on {pre_on}"
    t_off, t_on = r_off.figures[0]["value"], r_on.figures[0]["value"]
    assert t_off >= 1.2 * t_on, f"warnings off {t_off} s, on {t_on} s (guest instructions as ns)"


def test_mpl1_a_cpu_per_vp_is_never_warned(built, request):
    # Psyche's MPL 1: one copy, a VP per CPU (2 on 2). Nobody waits for a
    # CPU, so the kernel warns nobody and preempts nobody (kernel/warn.c):
    # warnings on cost nothing. Under icount, so the counts are the same in
    # every run; the guest times too, though with several icount CPUs
    # spinning costs no guest time (progs/bench/mpl.c), so the counts are
    # the point. At most one warning per VP: while the second VP starts it
    # can wait on the first one's CPU for a moment, and that is real.
    off, on = (mpl_exp("fifo", 1, w, "icount", iters=10000, smp=2) for w in ("off", "on"))
    r_off, r_on = boot_pair([(off, 0), (on, 0)], request)
    (f_on,), (f_off,) = r_on.figures, r_off.figures
    t = f_on["all_copies"]
    assert t["preemptions"] == 0 and t["cs_preempted"] == 0, t
    assert t["warnings"] <= f_on["vps"] and t["warnings_honored"] == t["warnings"], t
    assert f_off["all_copies"]["preemptions"] <= f_off["vps"], f_off["all_copies"]   # the start, unwarned
    assert abs(f_off["value"] / f_on["value"] - 1) <= 0.05, (f_off["value"], f_on["value"])


def test_mpl_psyche_shape_on_4_icount_cpus(built, request):
    # The bench's instruction-counted MPL variant (harness/experiments.py,
    # mpl4_exp): 4 icount CPUs, 4 VPs per copy spinning without PAUSE, a
    # 10 us tick. MPL 1: a CPU per VP, nobody waits for a CPU, so no
    # warnings and no preemptions: the counts are asserted exactly, over
    # the bench's three ticks. Not the times: lock hand-offs are chaotic
    # under QEMU's interleaving of the vCPUs, which any timer moves (the
    # warning timer too) and which partly follows host time
    # (methodology.md). Off / on medians differed by 25.1% and 25.9% at
    # merges that touched neither warnings nor the scheduler; over ticks
    # 5-17 "on" was the faster in 8 of 10 boots, over 7, 10, 13 the slower
    # in 3 of 3. What warnings on cost with nobody waiting is measured
    # where it is exact: one VP on one icount CPU, the same work, on and
    # off (below).
    # MPL 3: 12 VPs share the 4 CPUs; without warnings holders are
    # preempted inside sections and the running peers spin through it;
    # with them (almost) never.
    one = [mpl4_exp("fifo", 1, w) for w in ("off", "on")]
    alone = [mpl_exp("fifo", 1, w, "icount", iters=3000, smp=1, cs=1000, ncs=6000, vps=1,
                     spin="busy") for w in ("off", "on")]
    runs = boot_pair([(e, i) for e in one for i in range(len(MPL4_SEEDS))] +
                     [(e, 0) for e in alone], request)
    for r in runs[:-2]:
        (f,) = r.figures
        t = f["all_copies"]
        assert t["cs_preempted"] == 0 and t["preemptions"] <= f["vps"], t
        assert t["warnings"] <= f["vps"], t     # the start: a VP can wait a moment
    # Alone, warnings on cost a timer interrupt per quantum (when the
    # warning falls due and finds nobody waiting: kernel/warn.c), about
    # 320 instructions in 2 ms, 0.02%: no warning, no preemption, no
    # yield. A warning given with nobody to yield to, or a warning timer
    # that fired again and again, would cost far more than 0.1%.
    (a_off,), (a_on,) = (r.figures for r in runs[-2:])
    for f in (a_off, a_on):
        t = f["all_copies"]
        assert t["warnings"] == t["preemptions"] == 0, t
    assert abs(a_on["value"] / a_off["value"] - 1) <= 0.001, (a_off["value"], a_on["value"])
    seed = ("tick=10",)
    off3, on3 = (mpl4_exp("fifo", 3, w, seeds=seed) for w in ("off", "on"))
    r_off, r_on = boot_pair([(off3, 0), (on3, 0)], request)
    (f_off,), (f_on,) = r_off.figures, r_on.figures
    a_off, a_on = f_off["all_copies"], f_on["all_copies"]
    assert a_on["cs_preempted"] * 10 <= a_off["cs_preempted"], (a_off, a_on)
    assert a_on["warnings_honored"] >= 0.95 * a_on["warnings"], a_on
    assert a_off["lock_wait_share"] >= 3 * a_on["lock_wait_share"], (a_off, a_on)
    assert f_off["value"] >= 1.15 * f_on["value"], (f_off["value"], f_on["value"])
