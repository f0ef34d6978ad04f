"""The kernel never trusts user-writable memory: each field it reads from a
VP page is checked when used. A bad value kills only the space that wrote
it, with one console line naming the field; fields that are the user's own
business (resume window, current_thread, ring_tail) never hurt the kernel;
warn_ns is capped. Each run has `hello 0` beside the bad program, which
must finish normally. Programs: progs/tests/badvp.c."""
import re

import pytest
from helpers import HEX, USER_TEXT, USER_TOP, done, only, result

KERNEL_ADDR = 0xffffffff80100000
PSEUDO_BASE = 0x00007ffe00000000
UNMAPPED = 0x00007f0000000000
RING_SIZE = 16

# kind -> (field the kernel names, the bad value it must report)
BAD_FIELD = {
    "entry-kernel": ("upcall_entry", KERNEL_ADDR),
    "entry-noncanon": ("upcall_entry", 0x0000800000000000),
    "entry-low": ("upcall_entry", 0x1),
    "stack-low": ("upcall_stack", 0x10),
    "stack-kernel": ("upcall_stack", KERNEL_ADDR),
    "stack-noncanon": ("upcall_stack", 0xdead0000beef0000),
    # badvp does one self-signal round trip first, so the kernel's ring_tail is 1
    "head-ahead": ("ring_head", 1 + 100),
    "head-behind": ("ring_head", (1 - RING_SIZE - 1) % 2**32),
    # after 2*RING_SIZE round trips; modulo 2^32 it claims tail+1 unread events
    "head-max": ("ring_head", 0xffffffff),
}
# Bad in a way only the hardware can see: an ordinary user page fault.
# kind -> (addr check, "(access, reason)")
PAGE_FAULT = {
    "entry-unmapped": (lambda a, rip: a == rip == UNMAPPED, "exec, not present"),
    "stack-unmapped": (lambda a, rip: UNMAPPED - 64 <= a < UNMAPPED, "write, not present"),
    "pseudo-write": (lambda a, rip: a == PSEUDO_BASE, "write, protection"),
}
RESUME = ["resume-empty", "resume-inverted", "resume-kernel", "resume-noncanon"]
WARN = ["warn-huge", "warn-big", "warn-quantum", "warn-over"]
EV_BLOCKED, EV_UNBLOCKED, EV_WARNING, EV_SIGNAL = 1, 2, 3, 6
BLK_IO = 2
SIG_PAYLOAD = 0x5157


def run_bad(boot, kind, status, extra=""):
    """badvp KIND beside hello 0: the machine finishes, hello is unharmed."""
    r = boot(f"run=badvp,{kind} run=hello,0{extra}", smp=2, timeout=30)
    done(r, status)
    assert not [l for l in r.lines if "PANIC" in l], r.tail()
    hello = only(r, "exit", prog="hello")
    assert hello["status"] == 0 and "killed" not in hello, r.tail()
    result(r, "hello")
    st = only(r, "start", prog="badvp")
    assert st["argv"] == ["badvp", kind], st
    ex = only(r, "exit", prog="badvp")
    assert ex["space"] == st["space"]
    return r, ex


def kill_line(r, ex):
    """The one human line saying why badvp's space died: (cause, addr, rip, detail)."""
    lines = [l for l in r.lines if "killed:" in l]
    assert len(lines) == 1, f"expected one kill line, got {lines}\n{r.tail()}"
    m = re.fullmatch(rf"badvp\[space {ex['space']}\]: killed: (.+) at (0x[0-9a-f]+), "
                     r"rip (0x[0-9a-f]+) \((.*)\)", lines[0])
    assert m, f"kill line has the wrong form: {lines[0]!r}"
    assert m[1] == ex["killed"], lines[0]
    assert (int(m[2], 16), int(m[3], 16)) == (int(ex["addr"], 16), int(ex["rip"], 16)), lines[0]
    return m[1], int(m[2], 16), int(m[3], 16), m[4]


@pytest.mark.parametrize("kind", sorted(BAD_FIELD))
def test_bad_field_kills_only_that_space(boot, kind):
    field, value = BAD_FIELD[kind]
    r, ex = run_bad(boot, kind, 63)     # a killed boot program makes the aggregate 63
    assert not [x for x in r.results if x.get("name") == "badvp"], \
        f"badvp got past the trigger\n{r.tail()}"
    assert ex["status"] == -1 and ex["killed"] == "bad VP page", ex
    assert HEX.fullmatch(ex["addr"]) and HEX.fullmatch(ex["rip"]), ex
    cause, addr, rip, detail = kill_line(r, ex)
    assert addr == value, f"reported {addr:#x}, the bad value was {value:#x}"
    assert detail == f"VP 0 page: {field} = {value:#x}", detail
    # The event was raised by a syscall in badvp's own code.
    assert USER_TEXT <= rip < USER_TEXT + 0x100000, hex(rip)


@pytest.mark.parametrize("kind", sorted(PAGE_FAULT))
def test_hardware_fault_kills_only_that_space(boot, kind):
    check, access = PAGE_FAULT[kind]
    r, ex = run_bad(boot, kind, 63)
    assert not [x for x in r.results if x.get("name") == "badvp"], r.tail()
    assert ex["status"] == -1 and ex["killed"] == "page fault", ex
    cause, addr, rip, detail = kill_line(r, ex)
    assert check(addr, rip), f"addr {addr:#x} rip {rip:#x}"
    assert detail == access, detail
    assert USER_TEXT <= rip < USER_TOP, hex(rip)


def signals_and_io(res, nsig):
    """The events of `nsig` self-signals then one sys_io(0, 4242), in order."""
    evs = res["events"]
    assert [e["type"] for e in evs] == [EV_SIGNAL] * nsig + [EV_BLOCKED, EV_UNBLOCKED], res
    assert [e["seq"] for e in evs] == list(range(evs[0]["seq"], evs[0]["seq"] + len(evs))), res
    for e in evs[:nsig]:
        assert e["arg"] == SIG_PAYLOAD, e
    assert evs[-2]["arg"] == evs[-1]["arg"] == BLK_IO, res
    assert evs[-1]["result"] == 4242, res


@pytest.mark.parametrize("kind", RESUME)
def test_resume_window_garbage_is_harmless(boot, kind):
    # A window holding no user code: events are delivered as usual and the
    # program goes on to exit 0.
    r, ex = run_bad(boot, kind, 0)
    assert ex["status"] == 0 and "killed" not in ex, ex
    res = result(r, "badvp")
    signals_and_io(res, 3)
    assert res["upcalls"] == res["pp_upcalls"] == 4, res
    assert res["ring_head"] == res["ring_tail"] == 5, res


def test_resume_window_everything(boot):
    # Every rip "is resuming": the kernel must deliver without saving over
    # `save` (badvp put a sentinel there), and still not kill anything.
    r, ex = run_bad(boot, "resume-all", 0)
    assert ex["status"] == 0 and "killed" not in ex, ex
    res = result(r, "badvp")
    assert res["save_rip"] == 0xdeadbeefcafef00d, res
    assert res["upcalls"] == 1 and res["events"] == 1, res
    assert res["ev_type"] == EV_SIGNAL and res["ev_arg"] == SIG_PAYLOAD, res


@pytest.mark.parametrize("kind", WARN)
def test_warn_ns_is_capped(boot, kind):
    # A warning goes out only when a preemption is real (kernel/warn.c):
    # two spinning VPs keep both CPUs contended. They spin 2 s and badvp
    # waits up to 4 quanta + 1.5 s for its warning: with 300 ms and
    # 100 ms, a loaded host once ran badvp's window while a spinner had
    # not run at all (warned 0).
    r, ex = run_bad(boot, kind, 0, " run=spin:2,2000")
    res = result(r, "badvp")
    cap, q = res["warn_cap_ns"], res["quantum_ns"]
    assert 0 < cap < q, res
    assert res["warned"] == 1, f"no preemption warning within 4 quanta + 1.5 s: {res}"
    assert res["type"] == EV_WARNING, res
    # The warning names the quantum's end, and comes at most cap before it.
    assert res["arrived"] >= res["deadline"] - cap, \
        f"warning {(res['deadline'] - res['arrived']) / 1e6:.3f} ms before the deadline, " \
        f"cap {cap / 1e6:.3f} ms: {res}"
    assert res["arrived"] >= res["t0"], res


def test_current_thread_round_trips(boot):
    r, ex = run_bad(boot, "current-garbage", 0)
    res = result(r, "badvp")
    vals = [0xdeadbeefcafef00d, KERNEL_ADDR, 0, 2**64 - 1, 0x0000800000000000]
    evs = res["events"]
    assert [e["type"] for e in evs] == [EV_BLOCKED, EV_UNBLOCKED] * len(vals), res
    for i, v in enumerate(vals):
        b, u = evs[2 * i], evs[2 * i + 1]
        assert b["thread"] == u["thread"] == v, (i, b, u)
        assert b["arg"] == u["arg"] == BLK_IO and u["result"] == 1000 + i, (b, u)


def test_ring_tail_is_the_kernels(boot):
    # User writes to ring_tail are overwritten with the kernel's own count;
    # events keep arriving in order.
    r, ex = run_bad(boot, "tail-garbage", 0)
    res = result(r, "badvp")
    signals_and_io(res, 5)
    assert res["ring_head"] == res["ring_tail"] == 7, res


def test_enable_delivers_pending(boot):
    # An event that reached the ring while software interrupts were disabled
    # (the kernel set `pending`) is delivered by vp_enable, not left waiting
    # for some later event.
    r = boot("run=badvp,enable-pending", timeout=30)
    assert r.kind == "done", r.tail()
    res = result(r, "badvp")
    assert res["signal"] == 0 and res["pending_before"] == 1 and res["ring_tail_before"] == 1, res
    assert res["upcalls_after_enable"] == 1, \
        f"vp_enable left a pending event in the ring undelivered: {res}"
    done(r, 0)
