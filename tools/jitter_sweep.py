#!/usr/bin/env python3
"""Boot the SMP stress programs under the race shaker (`jitter=SEED`,
kernel/jitter.c), many seeds, and print one line per boot; keep the log
of every boot that did not end cleanly (panic, watchdog, timeout, or a
status other than the one expected) in build/jitter/.

    tools/jitter_sweep.py [--seeds 1,2,3] [--jobs 2] [--only WORD] [--list]

A boot is clean when it halts with the expected status (0 unless the
table says otherwise) and prints no PANIC and no `wakerace:` line. The
table is the command lines of the tests (harness/tests/test_*.py) that
stress SMP paths; --only keeps the lines containing WORD. A 2-core host
shared with other work should keep --jobs at 2.
"""
import argparse
import concurrent.futures as cf
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKGS = ["fifo", "naive", "kthread", "tutor", "prio"]
SUITE = "create_join,park,mutex,cond,barrier,sem,once"


def table():
    """(smp, timeout, words, expected status)"""
    t = []
    for smp in (2, 4):
        for p in PKGS:
            t.append((smp, 180, f"quantum=2 run=conformance,{p},vps=4,{SUITE}", 0))
        for a in PKGS:
            for b in PKGS:
                if a != b:
                    t.append((smp, 180, f"quantum=2 run=conformance,{a}+{b},vps=4,{SUITE}", 0))
        calls = {2: 16000, 4: 4000}[smp]
        t += [(smp, 160, f"run=sysfuzz,{calls},1302,4 memcheck watchdog=150", 0),
              (smp, 160, f"run=sysfuzz:2,{calls},1702,4,rw memcheck watchdog=150", 0),
              (smp, 160, f"run=fuzzaudit,3,3,{calls // 3},4202 memcheck watchdog=150", 0)]
        for a, b in (("fifo", "kthread"), ("naive", "fifo"), ("kthread", "prio")):
            t += [(smp, 180, f"memcheck watchdog=60 run=xspace,pc,{a},{b},2000", 0),
                  (smp, 180, f"memcheck watchdog=60 run=xspace,pingpong,{a},{b},1000", 0),
                  (smp, 120, f"memcheck watchdog=100 run=xspace,ownerdead,{a},{b}", 0)]
        for p in ("fifo", "kthread"):
            t += [(smp, 120, f"memcheck watchdog=100 run=xspace,revoke,{p}", 0),
                  (smp, 120, f"memcheck watchdog=100 run=xspace,unmapwait,{p}", 0)]
        for p in ("fifo", "tutor"):
            t.append((smp, 180, f"memcheck watchdog=60 run=xspace,hostile,{p},5", 0))
        t += [(smp, 120, "memcheck watchdog=100 run=xspace,memfree", 0),
              (smp, 120, "watchdog=100 run=spawner,null-read,div0,ud2,noncanonical", 0),
              (smp, 400, "memcheck watchdog=380 run=kheapattack,root,8,2,120", 0),
              (smp, 240, "memcheck memquota=100000 watchdog=220 run=futexstale", 0),
              (smp, 60, "quantum=2 watchdog=55 run=timerexit", 0),
              (smp, 240, "memcheck memquota=24 watchdog=220 run=segexhaust,20,2", 0),
              (smp, 240, "memcheck memquota=100000 watchdog=220 run=vpreserve", 0)]
        for p, n in (("fifo", 100000), ("kthread", 10000), ("naive", 100000)):
            t.append((smp, 120, f"quantum=2 watchdog=110 run=wakerace,{p},4,{n}", 0))
        for p in ("fifo", "kthread", "naive"):
            t.append((smp, 240, f"quantum=2 watchdog=220 run=timedrace,{p},4,8,3000", 0))
        for p in PKGS:
            t.append((smp, 240, f"watchdog=220 run=ptest,pkg={p}", 0))
        # hostile programs (progs/tests), at the statuses their tests expect
        t += [(smp, 240, "memcheck memquota=1000 watchdog=200 run=secev,sigflood,100000", 0),
              (smp, 240, "memcheck watchdog=200 run=secev,caps", 0),
              (smp, 240, "memcheck watchdog=200 run=secev,children,40", 0),
              (smp, 240, "memcheck watchdog=200 run=secev,iostorm,100000", 0),
              (smp, 240, "memcheck watchdog=200 run=secev,timerstorm,1000000", 0),
              (smp, 240, "memcheck watchdog=200 run=secev:4,parked", 0),
              (smp, 120, "memcheck watchdog=100 run=secev,waiters,4", 0),
              (smp, 120, "memcheck watchdog=100 run=fsgsattack", 0),
              (smp, 120, "memcheck watchdog=100 run=acflag", 0),
              (smp, 120, "memcheck watchdog=100 run=lazysys", 0),
              (smp, 240, "memcheck memquota=16 watchdog=200 run=lazytables", 63),
              (smp, 120, "watchdog=100 run=hello,0 run=sysfuzz,30000,7,2 run=badcall run=hello,0 memcheck", 0),
              (smp, 120, "memcheck watchdog=100 run=memattack,vprange", 0),
              (smp, 120, "memcheck watchdog=100 run=memattack,pseudowrite", 63),
              (smp, 120, "memcheck watchdog=100 run=memattack,placement", 0),
              (smp, 240, "memcheck watchdog=200 run=memattack,churn", 0),
              (smp, 120, "memcheck vpidbase=4294967196 watchdog=100 run=idwrap,200", 0)]
    return t


def boot(smp, timeout, words, want, seed, keep):
    raw = f"jitter={seed} {words}"
    cmd = [sys.executable, "-m", "harness", "run", *raw.split(), "--smp", str(smp),
           "--timeout", str(timeout)]
    t0 = time.time()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout + 60)
    out = p.stdout + p.stderr
    m = re.search(r'@halt \{"status": (-?\d+)', out)
    bad = [l for l in out.splitlines() if "@boot" not in l and
           ("PANIC" in l or "wakerace:" in l or "timed out" in l.lower())]
    ok = m is not None and int(m.group(1)) == want and not bad
    line = f"{'ok  ' if ok else 'FAIL'} {time.time() - t0:5.1f}s smp{smp} {raw}"
    if not ok:
        keep.mkdir(parents=True, exist_ok=True)
        f = keep / f"{abs(hash(raw)) % 10**8:08d}-smp{smp}.log"
        f.write_text(f"{raw} --smp {smp}\n{out}")
        line += f"  [status {m.group(1) if m else None}{'; ' + bad[0] if bad else ''}] {f}"
    return ok, line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    rows = [r for r in table() if not a.only or any(w in r[2] for w in a.only)]
    if a.list:
        for smp, _, words, want in rows:
            print(f"smp{smp} status {want}: {words}")
        return 0
    seeds = [int(s) for s in a.seeds.split(",")]
    keep = ROOT / "build" / "jitter"
    fails = 0
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        futs = [ex.submit(boot, *r, s, keep) for s in seeds for r in rows]
        for f in cf.as_completed(futs):
            ok, line = f.result()
            fails += not ok
            print(line, flush=True)
    print(f"{len(futs)} boots, {fails} not clean")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
