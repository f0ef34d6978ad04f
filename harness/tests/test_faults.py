"""A user fault kills only the faulting space: the kernel reports the
cause, address and rip, other spaces go on, and nothing panics."""
import re

import pytest
from helpers import HEX, USER_TEXT, USER_TOP, done, only, result

KERNEL_ADDR = 0xffffffff80100000
CAUSE = {
    "null-read": "page fault", "null-write": "page fault", "write-text": "page fault",
    "exec-data": "page fault", "kernel-read": "page fault",
    "noncanonical": "general protection", "priv": "general protection",
    "div0": "divide error", "ud2": "invalid opcode",
}
# The human line's "(access, reason)" for page faults.
PF_DETAIL = {
    "null-read": "read, not present", "null-write": "write, not present",
    "write-text": "write, protection", "exec-data": "exec, protection",
    "kernel-read": "read, protection",
}


def check_killed(r, ex, kind):
    """The @exit record `ex` and the human line say `kind` killed it."""
    cause = CAUSE[kind]
    assert ex["status"] == -1 and ex["killed"] == cause, f"{ex}\n{r.tail()}"
    assert HEX.fullmatch(ex["addr"]) and HEX.fullmatch(ex["rip"]), ex
    addr, rip = int(ex["addr"], 16), int(ex["rip"], 16)
    # Every fault happens while running the program's own code, except
    # exec-data's, whose rip is the data address jumped to.
    assert USER_TEXT <= rip < USER_TOP, ex
    if kind.startswith("null-"):
        assert addr < 0x1000, ex
    elif kind == "kernel-read":
        assert addr == KERNEL_ADDR, ex
    elif kind == "write-text":
        assert USER_TEXT <= addr < USER_TEXT + 0x100000, ex
    elif kind == "exec-data":
        assert addr == rip, ex
    pat = re.compile(rf"fault\[space {ex['space']}\]: killed: {cause} at (0x[0-9a-f]+), "
                     r"rip (0x[0-9a-f]+)( \(.*\))?")
    human = [m for m in map(pat.fullmatch, r.lines) if m]
    assert len(human) == 1, f"no human line for space {ex['space']}\n{r.tail()}"
    assert (int(human[0][1], 16), int(human[0][2], 16)) == (addr, rip), human[0][0]
    if kind in PF_DETAIL:
        assert human[0][3] == f" ({PF_DETAIL[kind]})", human[0][0]


@pytest.mark.parametrize("kind", sorted(CAUSE))
def test_fault_kills_only_faulter(boot, kind):
    r = boot(f"run=fault,{kind} run=hello,0", smp=2)
    done(r, 63)   # a killed boot program makes the aggregate 63
    st = only(r, "start", prog="fault")
    assert st["argv"][-1] == kind
    ex = only(r, "exit", prog="fault")
    assert ex["space"] == st["space"]
    check_killed(r, ex, kind)
    hello = only(r, "exit", prog="hello")
    assert hello["status"] == 0 and "killed" not in hello
    assert not [l for l in r.lines if l.startswith("PANIC")]


# Instructions a hostile program may aim at the kernel's entry points: each
# kills only its space, with the cause the CPU reports (a set where QEMU's
# TCG and hardware differ: TCG makes INT1 #UD, and reads the frame of an
# iretq or lret to ring 0 as the kernel, which SMAP turns into a page fault
# where hardware raises #GP for the selector), and nothing panics.
HOSTILE = {
    "int3": {"general protection"}, "int80": {"general protection"},
    "inttimer": {"general protection"},          # int $0xf0: gates are DPL 0
    "icebp": {"debug", "invalid opcode"},
    "trapflag": {"debug"},                       # single-step in user mode
    "tfsyscall": {"debug"},                      # TF across SYSCALL: #DB after sysret
    "cli": {"general protection"}, "inout": {"general protection"},
    "rdmsr": {"general protection"}, "swapgs": {"general protection"},
    "lidt": {"general protection"}, "movcr3": {"general protection"},
    "movss": {"general protection"}, "sysret": {"general protection"},
    "iretq": {"general protection", "page fault"},
    "lret": {"general protection", "page fault"},
    "x87div": {"x87 floating point"},            # CR0.NE: #MF, not a lost IRQ 13
    "stack": {"page fault"},                     # rsp in the kernel, then a push
    "rspsyscall": {"general protection", "stack fault"},   # non-canonical rsp across SYSCALL
    "protro": {"page fault"}, "protnone": {"page fault"},  # SYS_protect took the access away
    "protexec": {"page fault"},
    "lazyhole": {"page fault"},                  # munmap cut a demand-zero region
    "avx": {"invalid opcode"},                   # no OSXSAVE: no state the kernel would not save
    "x87pending": {"x87 floating point"},        # pending across switches: raised at our fwait
    "sysenter": {"general protection", "invalid opcode"},   # never set up (Intel #GP, AMD #UD)
    "rdpmc": {"general protection"}, "movdr7": {"general protection"},
    "invlpg": {"general protection"},
    "int8": {"general protection"},              # the double-fault vector: gates are DPL 0
    "int14": {"general protection"}, "into": {"invalid opcode"},
}
PROT_DETAIL = {"protro": "write, protection", "protnone": "read, protection",
               "protexec": "exec, protection", "lazyhole": "read, not present"}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_instruction_kills_only_its_space(boot, kind):
    r = boot(f"run=fault,{kind} run=hello,0", smp=2)
    done(r, 63)
    ex = only(r, "exit", prog="fault")
    assert ex["status"] == -1 and ex["killed"] in HOSTILE[kind], f"{ex}\n{r.tail()}"
    rip = int(ex["rip"], 16)
    assert USER_TEXT <= rip < USER_TOP, ex
    assert any(l.startswith(f"fault[space {ex['space']}]: killed: {ex['killed']} at ")
               for l in r.lines), r.tail()
    if kind in PROT_DETAIL:
        assert any(f"({PROT_DETAIL[kind]})" in l for l in r.lines if l.startswith("fault[")), r.tail()
    assert only(r, "exit", prog="hello")["status"] == 0
    assert not [l for l in r.lines if l.startswith("PANIC")]


def test_fault_alone_on_one_cpu(boot):
    r = boot("run=fault,null-write")
    done(r, 63)
    check_killed(r, only(r, "exit", prog="fault"), "null-write")


def test_spawner_survives_children(boot):
    kinds = ["null-read", "div0", "ud2", "noncanonical"]
    r = boot("run=spawner," + ",".join(kinds), smp=2)
    done(r, 0)    # children's deaths do not count: only boot programs do
    res = result(r, "spawner")
    assert res["children"] == [{"kind": k, "status": -1} for k in kinds], res
    assert res["after"] == 0, res
    faults = [e for e in r.events("exit") if e["prog"] == "fault"]
    assert len(faults) == len(kinds), r.tail()
    starts = {s["space"]: s["argv"][-1] for s in r.events("start") if s["prog"] == "fault"}
    for ex in faults:
        check_killed(r, ex, starts[ex["space"]])
    assert only(r, "exit", prog="hello")["status"] == 0
    assert only(r, "exit", prog="spawner")["status"] == 0


@pytest.mark.parametrize("smp", [2, 4])
def test_simultaneous_faults_one_kill_line(boot, smp):
    """progs/tests/killrace.c: 8 VPs of a space write to its text at the
    same moment, on every CPU. One line reports the kill, and it names
    the fault @exit names. Before, each VP that faulted before the kill
    reached it printed its own line (2 of 2 lines at -smp 2, 4 boots of
    4), and @exit named the last one's."""
    r = boot("run=killrace run=hello", smp=smp, timeout=60)
    done(r, 63)                      # (a boot program was killed)
    ex = only(r, "exit", prog="killrace")
    assert ex["status"] == -1 and ex["killed"] == "page fault", r.tail()
    lines = [l for l in r.lines if l.startswith("killrace[") and "killed:" in l]
    assert len(lines) == 1, r.tail()
    assert f"at {ex['addr']}, rip {ex['rip']}" in lines[0], (lines, ex)
    only(r, "exit", prog="hello", status=0)


@pytest.mark.parametrize("smp", [1, 2])
def test_syscall_at_the_top_of_user_space(boot, smp):
    """progs/tests/fault.c topsyscall: `syscall` in the last two bytes
    below USER_TOP, so its return address is USER_TOP, the first
    non-canonical address. sysretq and iretq to it both #GP in ring 0 on
    Intel, with the user's GS loaded (QEMU's TCG returns and faults in
    user mode, so only the report shows which): the kernel must kill the
    space before returning, naming the syscall instruction. Before, the
    kernel returned by iretq and the kill named rip 0x800000000000."""
    r = boot("run=fault,topsyscall run=hello,0", smp=smp)
    done(r, 63)
    ex = only(r, "exit", prog="fault")
    assert ex["status"] == -1 and ex["killed"] == "general protection", f"{ex}\n{r.tail()}"
    assert (int(ex["addr"], 16), int(ex["rip"], 16)) == (USER_TOP, USER_TOP - 2), ex
    lines = [l for l in r.lines if l.startswith("fault[") and "killed:" in l]
    assert len(lines) == 1 and lines[0].endswith("(return to a non-canonical rip)"), r.tail()
    only(r, "exit", prog="hello", status=0)
    assert not [l for l in r.lines if l.startswith("PANIC")]


def test_running_off_the_top_of_user_space(boot):
    """fault.c topfall: a nop slide ending at USER_TOP. The fetch past it
    faults in user mode; only this space dies, at USER_TOP."""
    r = boot("run=fault,topfall run=hello,0", smp=2)
    done(r, 63)
    ex = only(r, "exit", prog="fault")
    assert ex["status"] == -1 and ex["killed"] in {"general protection", "page fault"}, r.tail()
    assert int(ex["rip"], 16) == USER_TOP, ex
    only(r, "exit", prog="hello", status=0)


@pytest.mark.parametrize("smp", [2, 4])
def test_exit_racing_a_fault_is_reported_once(boot, smp):
    """progs/tests/exitrace.c: 100 children, each ending by SYS_exit(0) on
    one VP just as its other VP, on another CPU, writes to its text (the
    exit staggered from at once to a little later). Whichever ends the
    space decides the report: status 0 and no kill line, or status -1
    with one line naming the fault. Before, a fault printed its line and
    only then ended the space, so an exit that got in during the line
    (~100 us of UART) left "status 0, killed: page fault": 93-97 of 100
    children, at -smp 2 and 4; now none (99 killed, 1 exited)."""
    r = boot("run=exitrace,100,20", smp=smp, timeout=240)
    done(r)
    res = result(r, "exitrace")
    assert res["children"] == 100 and res["other"] == 0, res
    exits = [e for e in r.events("exit") if e["prog"] == "exitrace" and e["space"] != 1]
    assert len(exits) == 100, r.tail()
    bad = [e for e in exits if (e["status"] == -1) != ("killed" in e) or e["status"] not in (0, -1)]
    assert not bad, bad[:5]
    killed = {e["space"] for e in exits if "killed" in e}
    lines = [l for l in r.lines if l.startswith("exitrace[") and "killed:" in l]
    assert len(lines) == len(killed), (len(lines), len(killed))
    assert {int(re.match(r"exitrace\[space (\d+)\]", l)[1]) for l in lines} == killed


def test_int_n_every_vector(boot):
    """progs/tests/intsweep.c: `int $N` from user mode for every N in
    0..255, each in a child. Every gate is DPL 0, so each is a general
    protection fault naming the gate (error code N*8+2; QEMU's TCG says
    N*16+2) that kills only that child: never the kernel's own handler
    for the vector. Shown able to fail with one gate planted DPL 3 (0x40,
    the LAPIC timer's): that child's `int` ran the kernel's timer handler
    (an EOI for an interrupt never raised, a timer tick) and returned, and
    the child lived on ("did not fault", status 1)."""
    r = boot("run=intsweep", smp=2, timeout=180)
    done(r, 0)
    res = result(r, "intsweep")
    assert res["killed"] == 256 and res["survived"] == [], res
    vec = {e["space"]: int(e["argv"][1]) for e in r.events("start")
           if e["prog"] == "intsweep" and len(e["argv"]) == 2}
    assert len(vec) == 256, r.tail()
    pat = re.compile(r"intsweep\[space (\d+)\]: killed: general protection at (0x[0-9a-f]+), "
                     r"rip \2 \(error code (0x[0-9a-f]+)\)")
    seen = {}
    for m in filter(None, map(pat.fullmatch, r.lines)):
        n = vec[int(m[1])]
        assert int(m[3], 16) in (n * 8 + 2, n * 16 + 2), m[0]
        seen[n] = True
    assert len(seen) == 256, sorted(set(range(256)) - set(seen))[:10]
    for e in r.events("exit"):
        if e["space"] in vec:
            assert e["status"] == -1 and e["killed"] == "general protection", e
