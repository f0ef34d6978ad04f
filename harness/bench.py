"""
Microbenchmarks in guest instructions (progs/bench/ubench.c).

Under `-icount shift=0` rdtsc counts exactly one per guest instruction, so
every figure is an instruction count and a run is deterministic: two runs
of the same binaries give identical numbers. Figures are medians over
`reps` repetitions (min and max too), at -smp 1.

    from harness.bench import run_ubench
    for rec in run_ubench():
        print(rec["name"], rec["value"], rec["unit"])

or `python3 -m harness.bench [--reps N] [--json]`.
"""
import argparse
import json
import sys

from . import qemu

NAMES = ("syscall.null", "upcall.delivery", "upcall.block_roundtrip", "upcall.fault_roundtrip")


class BenchError(RuntimeError):
    def __init__(self, msg, run):
        super().__init__(f"{msg}\n{run.tail()}")
        self.run = run


def run_ubench(reps=1000, timeout=180, return_run=False):
    """Boot ubench under icount; return its benchmark records (the @result
    dicts whose unit is "instructions"), or (records, run) if return_run."""
    r = qemu.run(f"run=ubench,{reps}", smp=1, icount=True, timeout=timeout)
    if r.kind != "done" or r.status != 0:
        raise BenchError(f"ubench ended as {r.kind}, status {r.status}", r)
    summary = [x for x in r.results if x.get("name") == "ubench"]
    if len(summary) != 1 or summary[0].get("bad") != 0:
        raise BenchError(f"ubench saw unexpected events or results: {summary}", r)
    recs = [x for x in r.results if x.get("unit") == "instructions"]
    missing = [n for n in NAMES if n not in {x["name"] for x in recs}]
    if missing:
        raise BenchError(f"ubench did not report {missing}", r)
    return (recs, r) if return_run else recs


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m harness.bench")
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--json", action="store_true", help="one JSON record per line")
    a = ap.parse_args(argv)
    try:
        recs = run_ubench(a.reps)
    except BenchError as e:
        print(e, file=sys.stderr)
        return 1
    for rec in recs:
        if a.json:
            print(json.dumps(rec))
        else:
            extra = ", ".join(f"{k} {v}" for k, v in rec.items()
                              if k not in ("name", "unit", "value"))
            print(f"{rec['name']:24} {rec['value']:6} {rec['unit']}  ({extra})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
