"""
docs/results.md's I/O tables (harness/ioexp.py's records), beside Linux:
one table per CPU count, a row per phase and pass, the packages' figures
with their ratio to Linux's; then what the device saw, and issue 31's
goals worked out from the same records.
"""
from .ioexp import IO_SYSTEMS, IO_THREADS

PHASES = [("seq", "sequential read, 1 MiB reads", "MB/s")] + \
         [(f"rand.{t}", f"random 4 KiB preads, {t:,} thread{'s' if t > 1 else ''}", "IOPS")
          for t in IO_THREADS]


def _get(R, phase, cache, system, smp):
    return R.get(f"io.{phase}.{cache}.{system}", "wall", smp)


def _val(r):
    if not r:
        return "—"
    lo, hi = r["spread"]["min"], r["spread"]["max"]
    s = f"{r['value']:,.0f}"
    return s + (f" [{lo:,.0f}–{hi:,.0f}]" if r["runs"] > 1 and lo != hi else "")


def _ratio(a, b):
    return f" ({a['value'] / b['value']:.2f}×)" if a and b and b["value"] else ""


def _systems(R):
    return [p for p in IO_SYSTEMS if R.matching(rf"^io\..*\.{p}$")]


def io_table(R, smp):
    pkgs = _systems(R)
    rows = []
    for phase, what, unit in PHASES:
        for cache in ("cold", "warm"):
            lx = _get(R, phase, cache, "linux", smp)
            recs = [_get(R, phase, cache, p, smp) for p in pkgs]
            if not lx and not any(recs):
                continue
            rows.append([what, cache, unit, _val(lx)] +
                        [_val(r) + _ratio(r, lx) if r else "—" for r in recs])
    if not rows:
        return ""
    from .experiments_report import table
    return table(["phase", "cache", "unit", "Linux"] + [f"{p} (÷ Linux)" for p in pkgs], rows)


def _guest(r, key):
    v = (r or {}).get("guest", {}).get(key)
    return v if isinstance(v, (int, float)) and v >= 0 else None


def device_table(R, smp):
    """What the device saw in the cold passes: Anima's most requests in
    flight so far in the boot, Linux's requests, their size and the
    average in flight."""
    from .experiments_report import table
    pkgs = _systems(R)
    rows = []
    for phase, what, _ in PHASES:
        lx = _get(R, phase, "cold", "linux", smp)
        recs = [_get(R, phase, "cold", p, smp) for p in pkgs]
        if not lx and not any(recs):
            continue
        def lxs(key, spec):
            v = _guest(lx, key)
            return "—" if v is None else format(v, spec)
        rows.append([what, lxs("dev_reads", ",.0f"), lxs("dev_kib_per_read", ".1f"),
                     lxs("avg_in_flight", ".1f")] +
                    [str(_guest(r, "max_in_flight")) if _guest(r, "max_in_flight") is not None
                     else "—" for r in recs])
    if not rows:
        return ""
    return table(["cold pass", "Linux: device reads", "KiB per read", "avg in flight"] +
                 [f"{p}: most in flight so far" for p in pkgs], rows)


def _goal(a, b, factor=1.0):
    if not a or not b:
        return "not measured"
    q = a["value"] / b["value"]
    return f"{'met' if q >= factor else 'not met'} ({q:.2f}×)"


def goals(R):
    out = []
    for smp in (1, 2):
        for cache in ("cold", "warm"):
            seq = ", ".join(f"{p} {_goal(_get(R, 'seq', cache, p, smp), _get(R, 'seq', cache, 'linux', smp))}"
                            for p in _systems(R))
            out.append(f"- {smp} CPU{'s' if smp > 1 else ''}, {cache}: sequential MB/s at least "
                       f"Linux's: {seq or 'not measured'}.")
    f256 = _get(R, "rand.256", "cold", "fifo", 1)
    out.append("- Random reads from 256 threads on one fifo VP (1 CPU, cold) at least 80% of 256 "
               f"kthread VPs: {_goal(f256, _get(R, 'rand.256', 'cold', 'kthread', 1), 0.8)}; at least "
               f"Linux's with 256 threads: {_goal(f256, _get(R, 'rand.256', 'cold', 'linux', 1))}.")
    return "\n".join(out)


def io_section(R):
    parts = []
    for smp in (1, 2):
        t = io_table(R, smp)
        if t:
            parts += [f"**{smp} CPU{'s' if smp > 1 else ''}** (wall, multi-threaded TCG)", "", t, ""]
    if not parts:
        return "_No I/O figures in this run._\n"
    for smp in (1, 2):
        t = device_table(R, smp)
        if t:
            parts += [f"What the device saw, {smp} CPU{'s' if smp > 1 else ''}:", "", t, ""]
    parts += ["Issue 31's goals, from these figures:", "", goals(R), ""]
    return "\n".join(parts)
