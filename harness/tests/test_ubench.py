"""The icount microbenchmarks (harness/bench.py, progs/bench/ubench.c) report
their figures, every one positive, and deterministically: two runs give
identical numbers. No absolute targets here: the figures are for reading."""
from concurrent.futures import ThreadPoolExecutor

from harness.bench import NAMES, run_ubench

REPS = 1000


def test_ubench_figures_deterministic(built, request):
    # The two runs are independent single-CPU QEMUs: run them side by side.
    with ThreadPoolExecutor(2) as ex:
        runs = list(ex.map(lambda _: run_ubench(REPS, return_run=True), range(2)))
    request.node.anima_runs = [r for _, r in runs]
    (a, _), (b, _) = runs
    by_name = {x["name"]: x for x in a}
    for name in NAMES:
        rec = by_name[name]
        assert rec["unit"] == "instructions", rec
        assert rec["reps"] == REPS, rec
        for k, v in rec.items():
            if isinstance(v, int) and k != "reps":
                assert v > 0, (k, rec)
        assert 0 < rec["min"] <= rec["value"] <= rec["max"], rec
    for name in ("upcall.delivery", "upcall.block_roundtrip", "upcall.fault_roundtrip"):
        rec = by_name[name]
        assert rec["to_handler"] > 0 and rec["to_resumed"] > 0, rec
        assert rec["upcalls"] == REPS + 16, rec   # one upcall per repetition (and warm-up)
    assert by_name["upcall.block_roundtrip"]["blocks"] == REPS + 16
    assert by_name["upcall.fault_roundtrip"]["blocks"] == REPS + 16   # every touch blocked
    assert a == b, f"two icount runs differ:\n{a}\n{b}"
