#!/usr/bin/env python3
"""Many runs of progs/posix/racey under det, spread over the settings of
harness/tests/test_det.py (-smp 1/2/4, 1-8 VPs, the kernel's jitter),
SPACES det spaces per boot (each a run; they run side by side), after a
fifo control at -smp 2. Prints one line per boot and a summary; writes
build/racey.json; exits 1 if det gave more than one signature.

    make racey N=10000            # runs (det spaces), not boots
    tools/racey.py --runs 100 --jobs 2 --spaces 4 --control 4
"""
import argparse
import concurrent.futures as cf
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from harness import BUILD, qemu  # noqa: E402

ARGS = "8,20000"
FIELDS = ("sig", "order", "rand", "heap")
SETTINGS = [(1, 1, ""), (1, 8, "jitter=1"), (2, 2, ""), (2, 8, ""),
            (2, 4, "jitter=2"), (4, 4, ""), (4, 1, "jitter=3 quantum=2"),
            (4, 8, "jitter=4")]


def boot(pkg, smp, vps, pre, spaces):
    runs = " ".join(f"run=racey,pkg={pkg},vps={vps},{ARGS}" for _ in range(spaces))
    r = qemu.run(f"{pre} {runs}".strip(), smp=smp, timeout=60 + 30 * spaces)
    sigs = [tuple(e.get(f) for f in FIELDS) for e in r.events("result")
            if e.get("name") == "racey"]
    ok = r.kind == "done" and r.status == 0 and len(sigs) == spaces
    return ok, sigs, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--spaces", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--control", type=int, default=4, help="fifo boots at -smp 2")
    a = ap.parse_args()
    out = {"control": [], "det": Counter(), "bad_boots": 0, "runs": 0}
    for _ in range(a.control):
        ok, sigs, r = boot("fifo", 2, 2, "", 1)
        out["control"] += [s[0] for s in sigs]
        print("fifo smp=2", sigs[0][0] if sigs else r.kind, flush=True)
    boots = []
    left, i = a.runs, 0
    while left > 0:
        n = min(a.spaces, left)
        boots.append(SETTINGS[i % len(SETTINGS)] + (n,))
        left -= n
        i += 1
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(boot, "det", smp, vps, pre, n): (smp, vps, pre, n)
                for smp, vps, pre, n in boots}
        for f in cf.as_completed(futs):
            smp, vps, pre, n = futs[f]
            ok, sigs, r = f.result()
            out["runs"] += len(sigs)
            out["det"].update(sigs)
            if not ok:
                out["bad_boots"] += 1
                print(r.tail(), flush=True)
            print(f"det smp={smp} vps={vps} {pre or '-'} spaces={n}:",
                  "ok" if ok else r.kind, len(set(out["det"])), "distinct so far", flush=True)
    ctl = len(set(out["control"]))
    det = len(out["det"])
    print(f"control: fifo gave {ctl} distinct signatures in {len(out['control'])} runs")
    print(f"det: {det} distinct signature tuple(s) in {out['runs']} runs, "
          f"{out['bad_boots']} bad boots")
    BUILD.mkdir(exist_ok=True)
    (BUILD / "racey.json").write_text(json.dumps(
        {"control_runs": len(out["control"]), "control_distinct": ctl,
         "det_runs": out["runs"], "det_distinct": det, "bad_boots": out["bad_boots"],
         "det_signatures": ["/".join(k) for k in out["det"]]}, indent=1))
    return 0 if det == 1 and not out["bad_boots"] else 1


if __name__ == "__main__":
    sys.exit(main())
