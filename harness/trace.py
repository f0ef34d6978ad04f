"""
python3 -m harness trace PROGRAM [ARGS...] [--smp N] [--icount] [--size N] [--out FILE]

Boots the program with the kernel's `trace` word, so every CPU records its
scheduling events into a ring (kernel/trace.c), and writes the rings, as
printed at shutdown, in Chrome's trace-event JSON: open FILE (default
trace.json) at https://ui.perfetto.dev or chrome://tracing. One track per
CPU: a slice per VP run ("space S vp V"), idle slices, and instant events
for preemptions, warnings, upcalls, blocks, wake-ups and IPIs.
"""
import argparse
import json
import sys

from . import cmdline_of, qemu

# kernel/trace.h, in order
TYPES = [None, "dispatch", "stop", "preempt", "warn", "upcall", "block", "unblock",
         "wake", "ipi", "idle", "resume"]
VP_STATES = {0: "free", 1: "runnable", 2: "running", 3: "blocked", 4: "zombie"}


def parse(lines):
    """The %t lines of a console log: (header dict, [event dict]), events
    sorted by time. Header: cpus, size (ring slots per CPU), and per CPU
    how many events it kept and how many older ones were overwritten."""
    head = {"cpus": 0, "size": 0, "kept": {}, "lost": {}}
    events = []
    for line in lines:
        w = line.split()
        if not w:
            continue
        if w[0] == "%trace" and len(w) >= 4 and w[1] == "begin":
            head["cpus"], head["size"] = int(w[2]), int(w[3])
        elif w[0] == "%trace" and len(w) >= 5 and w[1] == "cpu":
            head["kept"][int(w[2])], head["lost"][int(w[2])] = int(w[3]), int(w[4])
        elif w[0] == "%t" and len(w) == 7:
            cpu, ns, typ, vp, sp, arg = (int(x) for x in w[1:])
            if 0 < typ < len(TYPES):
                events.append({"cpu": cpu, "ns": ns, "type": TYPES[typ], "vp": vp,
                               "sp": sp, "arg": arg})
    events.sort(key=lambda e: (e["ns"], e["cpu"]))
    return head, events


def slices(events):
    """Per-CPU intervals: [(cpu, kind, start_ns, end_ns, event)], kind "vp"
    (a VP ran: event is its dispatch) or "idle" (halted). An interval the
    ring cut at either end is dropped; one still open at the end closes at
    the last event."""
    out, open_ = [], {}
    end = events[-1]["ns"] if events else 0
    for e in events:
        c, t = e["cpu"], e["type"]
        if t in ("dispatch", "idle"):
            open_[c] = ("vp" if t == "dispatch" else "idle", e)
        elif t in ("stop", "resume"):
            o = open_.pop(c, None)
            if o and o[0] == ("vp" if t == "stop" else "idle"):
                out.append((c, o[0], o[1]["ns"], e["ns"], dict(o[1], end=e)))
    for c, (kind, e) in open_.items():
        out.append((c, kind, e["ns"], end, dict(e, end=None)))
    return out


def chrome(head, events):
    """Chrome trace-event JSON (a dict) for parsed rings."""
    us = lambda ns: ns / 1000.0
    out = [{"name": "process_name", "ph": "M", "pid": 0,
            "args": {"name": f"Anima, {head['cpus']} CPUs"}}]
    for c in range(head["cpus"]):
        out.append({"name": "thread_name", "ph": "M", "pid": 0, "tid": c,
                    "args": {"name": f"CPU {c}"}})
    for c, kind, t0, t1, e in slices(events):
        if kind == "vp":
            stop = e["end"]
            out.append({"name": f"space {e['sp']} vp {e['vp']}", "cat": "vp", "ph": "X",
                        "ts": us(t0), "dur": us(t1 - t0), "pid": 0, "tid": c,
                        "args": {"vp": e["vp"], "space": e["sp"],
                                 "left": VP_STATES.get(stop["arg"], stop["arg"]) if stop else "running"}})
        else:
            out.append({"name": "idle", "cat": "idle", "ph": "X", "ts": us(t0),
                        "dur": us(t1 - t0), "pid": 0, "tid": c})
    for e in events:
        if e["type"] in ("dispatch", "stop", "idle", "resume"):
            continue
        args = {"vp": e["vp"], "space": e["sp"]}
        if e["type"] == "warn":
            args["deadline_us"] = e["arg"]
        elif e["type"] == "upcall":
            args["events"] = e["arg"]
        elif e["type"] in ("block", "unblock"):
            args["mode"] = "thread" if e["arg"] else "vp"
        elif e["type"] in ("wake", "ipi"):
            args = {"cpu": e["arg"]} if e["type"] == "ipi" else dict(args, queue_cpu=e["arg"])
        out.append({"name": e["type"], "cat": e["type"], "ph": "i", "s": "t",
                    "ts": us(e["ns"]), "pid": 0, "tid": e["cpu"], "args": args})
    return {"traceEvents": out, "displayTimeUnit": "ns",
            "otherData": {"ring_size": head["size"],
                          "overwritten": {str(k): v for k, v in head["lost"].items()}}}


def record(words, smp=1, icount=False, size=None, timeout=120, mem="512M", on_line=None):
    """Boot `words` (as for `run`) with tracing on: (qemu Result, head, events)."""
    cmdline = cmdline_of(words) + (f" trace={size}" if size else " trace")
    r = qemu.run(cmdline, smp=smp, icount=icount, mem=mem, timeout=timeout, on_line=on_line)
    head, events = parse(r.lines)
    return r, head, events


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m harness trace")
    ap.add_argument("words", nargs="+", metavar="PROGRAM [ARGS...]")
    ap.add_argument("--smp", type=int, default=1)
    ap.add_argument("--icount", action="store_true")
    ap.add_argument("--size", type=int, help="events kept per CPU (16..65536)")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--out", default="trace.json")
    a = ap.parse_intermixed_args(argv)
    show = lambda l: None if l.startswith("%t ") else print(l, flush=True)
    try:
        r, head, events = record(a.words, a.smp, a.icount, a.size, a.timeout or None, on_line=show)
    except (ValueError, RuntimeError, FileNotFoundError) as e:
        print(f"harness: {e}", file=sys.stderr)
        return 2
    if r.kind != "done":
        print(f"harness: run ended as {r.kind}\n{r.tail(20)}", file=sys.stderr)
        return 1
    with open(a.out, "w") as f:
        json.dump(chrome(head, events), f)
    lost = sum(head["lost"].values())
    print(f"harness: {len(events)} events from {head['cpus']} CPUs -> {a.out}"
          + (f" ({lost} older ones overwritten; --size to keep more)" if lost else ""),
          file=sys.stderr)
    return 0
