"""
`make fuzz`: the long concurrent syscall fuzz with memory audits.

    python3 -m harness.fuzz [--calls N] [--boots B] [--children K] [--nvp V]
                            [--seed S] [--smp 2,4] [--no-disk] [--out build/fuzz.json]

Splits N calls (default 10^6) over B boots (default 4), alternating the
CPU counts in --smp. Each boot runs `fuzzaudit K V N/(B*K) SEED` with the
`memcheck` word and a watchdog: K sysfuzz children at once, V VPs each,
then the audit (INFO_MEM_AVAIL back exactly; see progs/tests/fuzzaudit.c).
Unless --no-disk, each boot has a fresh small ext2 disk of fuzz_tree's
/fz (sysfuzz's exec, fmap and link kinds reach their real paths there),
which e2fsck -fn must find clean afterwards.
Prints one line per boot and a summary, writes --out, and exits non-zero
unless every boot ended normally with no panic, every fuzzer finished its
calls with none unexpected, and every audit passed. The seeds are printed
first, so a failing boot can be repeated alone with the cmdline shown.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import BUILD, disk, qemu


def fuzz_tree(root):
    """/fz of the disk sysfuzz's files kinds expect (progs/tests/sysfuzz.c,
    'processes and files'): a 5-page file, a file that starts as an ELF
    header and goes on as garbage, a directory, fast, slow, cyclic and
    dangling links."""
    fz = Path(root) / "fz"
    (fz / "dir").mkdir(parents=True)
    (fz / ("d" * 70)).mkdir()
    rnd = random.Random(34)
    (fz / "f").write_bytes(bytes(rnd.randrange(256) for _ in range(5 * 4096 + 100)))
    (fz / "elf").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(9) + bytes(rnd.randrange(256) for _ in range(8192)))
    for name, target in {"fast": "f", "slow": "/fz/" + "d" * 70 + "/../f", "cyc": "cyc",
                         "dang": "nowhere"}.items():
        os.symlink(target, fz / name)


def fsck_clean(img):
    """Does e2fsck -fn find the image clean?"""
    e2fsck = shutil.which("e2fsck") or "/usr/sbin/e2fsck"
    return subprocess.run([e2fsck, "-fn", str(img)], capture_output=True).returncode == 0


def boot_one(i, smp, children, nvp, count, seed, timeout, image=None):
    watchdog = max(10, int(timeout) - 15)
    cmdline = f"run=fuzzaudit,{children},{nvp},{count},{seed} memcheck watchdog={watchdog}"
    r = qemu.run(cmdline, smp=smp, timeout=timeout, **({"disk": image} if image else {}))
    fuzzers = [e for e in r.results if e.get("name") == "sysfuzz"]
    audit = next((e for e in r.results if e.get("name") == "fuzzaudit"), None)
    panic = next((l for l in r.lines if l.startswith("PANIC")), None)
    calls = sum(f.get("calls", 0) for f in fuzzers)
    row = {
        "boot": i, "smp": smp, "cmdline": cmdline, "seed": seed, "kind": r.kind,
        "status": r.status, "elapsed_s": round(r.elapsed, 1), "panic": panic,
        "fuzzers": len(fuzzers), "calls": calls,
        "extra_calls": sum(f.get("extra", 0) for f in fuzzers),
        "unexpected": sum(f.get("unexpected", 0) for f in fuzzers),
        "kids_bad": sum(f.get("kids_bad", 0) for f in fuzzers),
        "audit": audit,
        "disk_clean": fsck_clean(image) if image else None,
    }
    ok_run = r.kind == "done" and len(fuzzers) == children and calls >= children * count
    row["ok"] = (ok_run and row["unexpected"] == 0 and row["kids_bad"] == 0
                 and audit is not None and audit.get("audit") == "pass" and r.status == 0
                 and row["disk_clean"] is not False)
    if not row["ok"]:
        row["tail"] = r.tail(30)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m harness.fuzz")
    ap.add_argument("--calls", type=int, default=1_000_000)
    ap.add_argument("--boots", type=int, default=4)
    ap.add_argument("--children", type=int, default=4)
    ap.add_argument("--nvp", type=int, default=4)
    ap.add_argument("--seed", type=int, default=None, help="first seed (default: the time)")
    ap.add_argument("--smp", default="2,4", help="CPU counts, used in turn")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per boot (a loaded host is slow)")
    ap.add_argument("--no-disk", action="store_true", help="boot without the /fz disk")
    ap.add_argument("--out", default=str(BUILD / "fuzz.json"))
    a = ap.parse_args(argv)

    smps = [int(s) for s in a.smp.split(",")]
    count = -(-a.calls // (a.boots * a.children))      # per child, rounded up
    seed0 = a.seed if a.seed is not None else int(time.time()) % 1_000_000_000
    print(f"fuzz: {a.boots} boots x {a.children} children x {a.nvp} VPs, {count} calls each "
          f"({a.boots * a.children * count} in all); first seed {seed0}", flush=True)
    t0 = time.monotonic()
    rows = []
    for i in range(a.boots):
        smp = smps[i % len(smps)]
        seed = seed0 + 1000 * i        # the children use seed .. seed+K-1
        with tempfile.TemporaryDirectory() as tmp:
            image = None
            if not a.no_disk:
                fuzz_tree(Path(tmp) / "tree")
                image = disk.make_image(Path(tmp) / "tree", Path(tmp) / "fz.img")
            row = boot_one(i, smp, a.children, a.nvp, count, seed, a.timeout, image)
        rows.append(row)
        au = row["audit"] or {}
        fig = "avail" if au.get("counter") == "INFO_MEM_AVAIL" else "free"
        print(f"fuzz: boot {i} -smp {smp} seed {seed}: {row['kind']}, {row['calls']} calls "
              f"(+{row['extra_calls']} by short VPs), unexpected {row['unexpected']}, "
              f"audit {au.get('audit', 'none')} ({au.get('counter', '?')}: "
              f"{au.get(f'mem_{fig}_before')} -> {au.get(f'mem_{fig}_after')}, "
              f"leaked {au.get('leaked')} B), {row['elapsed_s']} s"
              + ("" if row["ok"] else f"\n  FAILED: {row['cmdline']}"
                 + (f"\n  {row['panic']}" if row["panic"] else "")
                 + "".join(f"\n  child {j}: {w}" for j, w in enumerate(au.get("why") or []) if w)),
              flush=True)
    summary = {
        "calls": sum(r["calls"] for r in rows),
        "extra_calls": sum(r["extra_calls"] for r in rows),
        "boots": len(rows),
        "panics": sum(r["kind"] == "panic" for r in rows),
        "hangs": sum(r["kind"] == "timeout" for r in rows),
        "unexpected": sum(r["unexpected"] for r in rows),
        "audits_passed": sum(bool(r["audit"]) and r["audit"].get("audit") == "pass" for r in rows),
        "counter": sorted({(r["audit"] or {}).get("counter", "none") for r in rows}),
        "failed_boots": [r["cmdline"] for r in rows if not r["ok"]],
        "wall_s": round(time.monotonic() - t0, 1),
        "first_seed": seed0,
    }
    with open(a.out, "w") as f:
        json.dump({"summary": summary, "boots": rows}, f, indent=1)
    print(f"fuzz: {summary['calls']} calls (+{summary['extra_calls']} by short VPs) in "
          f"{summary['boots']} boots, {summary['wall_s']} s: panics {summary['panics']}, "
          f"hangs {summary['hangs']}, unexpected {summary['unexpected']}, audits passed "
          f"{summary['audits_passed']}/{summary['boots']} (counter {', '.join(summary['counter'])})")
    if "INFO_MEM_FREE" in summary["counter"]:
        print("fuzz: this kernel has no INFO_MEM_AVAIL: the audit used INFO_MEM_FREE, which "
              "counts the kernel heap's kept pages as leaked")
    print(f"fuzz: details in {a.out}")
    ok = not summary["failed_boots"] and summary["calls"] >= a.calls
    print("fuzz: PASS" if ok else "fuzz: FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
