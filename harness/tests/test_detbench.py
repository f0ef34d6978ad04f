"""The det benchmark of `make bench` (issue 33; harness/detexp.py and
harness/detreport.py): det's `det.stats` line is paired with its
program's record, the ratios to fifo are taken within a boot, the serial
share and a transaction's mean length are computed from det's figures
when it prints them and shown as "—" when it does not, and, booted under
icount, det's and det par's answers equal fifo's. Nothing here measures time."""
from harness import detexp, detreport
from harness.experiments import Exp, Run, aggregate, boot_once
from harness.experiments_report import Records


def rec(prog, pkg, ns, **kw):
    return {"name": f"workload.{prog}.{pkg}", "workload": prog, "package": pkg, "threads": 4,
            "scale": 1, "unit": "ns", "value": ns, "ns": ns, "check": "ok", **kw}


def section(runs):
    records, _ = aggregate(runs)
    R = Records({"header": {}, "records": records})
    return R, detreport.det_section(R, None)


def row(text, prog):
    """The cells of the first table row of `prog` after `after`."""
    return [[c.strip() for c in l.strip("|").split("|")] for l in text.splitlines()
            if l.startswith(f"| {prog} |") or l.startswith(f"| **{prog}** |")]


def test_pair_and_render_from_synthetic_results():
    results = [rec("histogram", "fifo", 4_000_000, pixels=7),
               rec("histogram", "det", 6_000_000, pixels=7),
               {"name": "det.stats", "moves": 6, "tx": 4, "commit_pages": 3,
                "serial_ns": 2_500_000, "parallel_ns": 7_500_000},
               rec("histogram", "det", 5_000_000, pixels=7),      # det par: mode "par"
               {"name": "det.stats", "mode": "par", "moves": 8, "tx": 6, "commit_pages": 5,
                "serial_ns": 1_000_000, "parallel_ns": 9_000_000},
               {"name": "det.heap", "turns": 3, "fallback": 0},
               rec("histogram", "kthread", 4_800_000, pixels=7),
               {"name": "det.stats", "moves": 99},        # not after a det record: ignored
               rec("kmeans", "fifo", 1_000_000), rec("kmeans", "det", 2_000_000),
               {"name": "det.stats", "moves": 71}]       # today's det: no tx, no times
    out = detexp.pair(results)
    by = {r["name"]: r for r in out}
    assert by["detbench.histogram.det"]["det"]["moves"] == 6
    dp = by["detbench.histogram.detpar"]
    assert dp["package"] == "detpar" and dp["det"]["tx"] == 6 and dp["det"]["heap_turns"] == 3
    assert "heap_turns" not in by["detbench.histogram.det"]["det"]
    assert by["detbench.histogram.detpar_over_fifo"]["value"] == 1.25
    assert by["detbench.histogram.detpar.serial_share"]["value"] == 0.1
    assert "det" not in by["detbench.histogram.kthread"]
    assert by["detbench.histogram.det_over_fifo"]["value"] == 1.5
    assert by["detbench.histogram.kthread_over_fifo"]["value"] == 1.2
    assert by["detbench.histogram.det.serial_share"]["value"] == 0.25
    assert "detbench.kmeans.det.serial_share" not in by
    assert detexp.same_output(by["detbench.histogram.det"], by["detbench.histogram.fifo"])[0]

    exp = Exp("detbench.synthetic", ("x",), names=r"^detbench\.", post=detexp.pair)
    run = Run(exp, 0, "done", 0)
    run.figures = [r for r in out if "unit" in r]
    _, text = section([run])
    ic = row(text, "histogram")[0]            # the run-time table: icount columns
    assert ic[1:5] == ["4.00", "1.500", "1.250", "1.200"], ic
    t1 = row(text, "histogram")[1]            # Table 1 (det par's): moves, tx, mean ms, pages, share
    assert t1[1:6] == ["8", "6", "1.67", "5", "10.0%"], t1
    assert t1[6:] == ["0", "23", "15.47", "29"], t1       # DTHREADS's own
    km = row(text, "kmeans")[1]
    assert km[1:6] == ["—"] * 5, km              # det par did not run it: none of det's
    assert "1 CPU, icount: det within 1.5× of fifo on 1 of 2 by the median (not met)" in text, text
    assert "1 CPU, icount: det par within 1.5× of fifo on 1 of 1 by the median (not met)" in text


def test_det_answers_equal_fifos_under_icount(built):
    progs = ("histogram", detexp.FALSE_SHARING)
    exp = Exp("detbench.test", detexp.steps(progs, ("fifo", "det", "detpar")), mode="icount",
              timeout=180, names=r"^detbench\.", post=detexp.pair)
    run = boot_once(exp, 0)
    assert not run.error, run.error
    by = {r["name"]: r for r in run.figures}
    for w in progs:
        fifo, det = by[f"detbench.{w}.fifo"], by[f"detbench.{w}.det"]
        same, a, b = detexp.same_output(det, fifo)
        assert same and a["check"] == "ok", (a, b)
        stats = det["det"]
        assert isinstance(stats["moves"], int) and stats["moves"] > 0 and stats["threads"] == 5
        assert "det" not in fifo
        assert by[f"detbench.{w}.det_over_fifo"]["value"] == det["value"] / fifo["value"]
        par = by[f"detbench.{w}.detpar"]        # det=par: its answer is fifo's too
        same, a, b = detexp.same_output(par, fifo)
        assert same and a["check"] == "ok", (a, b)
        assert par["det"]["mode"] == "par" and par["det"]["tx"] > 0, par
        # (main makes its arena alone, before its first create: no turn)
        assert par["det"]["heap_fallback"] == 0 and par["det"]["heap_arenas"] > 0, par
        assert f"detbench.{w}.detpar.serial_share" in by
    R, text = section([run])
    d = R.get("detbench.histogram.detpar", "icount", 1)     # Table 1 shows det par
    t1 = row(text, "histogram")[1]
    assert t1[1] == f"{d['guest']['det']['moves']:,}", t1
    want_tx = d["guest"]["det"].get("tx")
    assert t1[2] == (f"{want_tx:,}" if isinstance(want_tx, int) else "—"), t1
    fs = row(text, detexp.FALSE_SHARING)[0]
    assert fs[-1].startswith("0.14"), fs      # DTHREADS's linear_regression, 7x faster
