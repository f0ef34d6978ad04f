"""Issue 13, classes 3-5: events, capabilities, lifecycle (progs/tests/secev.c).

Every boot has the `memcheck` word and runs at -smp 1 and 2. Each test
failed on main at 5085bf9 for the issue's reason (the commit message and
the branch report say how):

- events are bounded and posting never allocates: an upcall handler that
  never drains its ring calls SYS_io IO_CALLS (20,000) times (its calls
  fall back to blocking the VP once its queue is full, and keep returning
  their value); a VP with no handler re-arms its timer TIMER_CALLS
  (250,000) times; 100,000 signals
  go to a VP that never drains, with every free page mapped by the sender
  (the old kernel panicked allocating the event). Kernel memory stays flat.
- capabilities are per-space handle tables: a child granted nothing hits
  nothing with every handle in [CAP_BASE, CAP_BASE+4096), 100,000 random
  64-bit values, and the inversion attack on the old TSC-mixed tokens
  (which found the parent's capability on the old kernel); a handle given
  through spawn works; one naming an exited VP whose slot was reused gives
  -ESRCH; grants go only to a child or the parent; the table fills at
  MAXCAP_SPACE; spawn with a bad handle fails.
- a space has at most 128 children in the table (-EAGAIN past it), so one
  space cannot fill the global table of 256;
- any number of VPs may wait on one child: all return with its status;
- a space whose only started VP leaves with SYS_vp_exit ends, status 0,
  with VPs still parked (run=PROG:4).

Memory: INFO_MEM_AVAIL (the guest falls back to INFO_MEM_FREE on a kernel
without it and says so; here it must not), within MEM_SLACK (1 MiB) of the
start, measured inside the living space: what the
kernel may keep on purpose (page-table pages of the sender's big mappings,
about 250 KiB at 128 MiB; kernel-heap pages kept for reuse).
"""
import pytest
from helpers import done, only, result

SMP = [1, 2]
CAP_BASE, MAXCAP_SPACE = 0x10000, 64
EAGAIN, ESRCH, EPERM, EBADF, EINVAL, ECHILD, ENOMEM = 11, 3, 1, 9, 22, 10, 12
EVQ_SIZE = 128
MEM_SLACK = 1 << 20
# The storms' lengths. The old kernel lost 51 MB in 100,000 io calls and
# 20 MB in 1,000,000 re-arms (about 530 and 21 bytes each): 20,000 and
# 250,000 still lose 10 and 5 MB there, 10 and 5 times MEM_SLACK, and
# each is far past the event queue's bound (EVQ_SIZE), so a queue that
# grew past it would be seen too (they were 100,000 and 1,000,000, 5.6
# and 2 s of each boot's 6 and 2.4).
IO_CALLS, TIMER_CALLS = 20000, 250000


def case(r, name):
    evs = [e for e in r.events("result") if e.get("name") == "secev" and e.get("case") == name]
    assert len(evs) == 1, f"expected one secev {name} result\n{r.tail()}"
    return evs[0]


def flat(res):
    # The old kernel lost 51 MB (iostorm) and 20 MB (timerstorm) here.
    assert res["mem_info"] == "avail", res
    assert res["mem_lost"] <= MEM_SLACK, res


@pytest.mark.parametrize("smp", SMP)
def test_undrained_handler_io_storm(boot, smp):
    r = boot(f"memcheck run=secev,iostorm,{IO_CALLS}", smp=smp, timeout=240)
    done(r, 0)
    res = case(r, "iostorm")
    assert res["calls"] == IO_CALLS and res["blocks"] == IO_CALLS, res
    # Past the bound, calls block the VP and return their value.
    assert res["direct"] >= IO_CALLS - 2 * EVQ_SIZE, res
    flat(res)


@pytest.mark.parametrize("smp", SMP)
def test_timer_rearm_storm(boot, smp):
    r = boot(f"memcheck run=secev,timerstorm,{TIMER_CALLS}", smp=smp, timeout=240)
    done(r, 0)
    res = case(r, "timerstorm")
    assert res["other"] == 0 and res["ok"] + res["eagain"] == TIMER_CALLS, res
    assert res["events"] <= EVQ_SIZE, res
    flat(res)


@pytest.mark.parametrize("smp", SMP)
def test_signal_flood_memory_full(boot, smp):
    # memquota above the RAM: the space may map all it can, down to the
    # kernel's reserve (2 MiB at 128 MiB), and then floods signals. The
    # old kernel panicked "event_post: out of memory" here.
    r = boot("memcheck memquota=1000 run=secev,sigflood,100000", smp=smp, timeout=240, mem="128M")
    done(r, 0)
    res = case(r, "sigflood")
    assert res["grabbed_chunks"] > 0 and res["mem_free_when_full"] < (4 << 20), res
    assert res["ok"] == EVQ_SIZE and res["first_eagain"] == EVQ_SIZE, res
    assert res["eagain"] == 100000 - EVQ_SIZE and res["other"] == 0, res
    flat(res)


@pytest.mark.parametrize("smp", SMP)
def test_capabilities(boot, smp):
    r = boot("memcheck run=secev,caps", smp=smp, timeout=240)
    done(r, 0)
    forge = case(r, "forge")
    assert forge["own"] == CAP_BASE, forge
    assert forge["small_hits"] == forge["rand_hits"] == forge["inv_hits"] == 0, forge
    assert forge["errs_other"] == 0, forge
    g = case(r, "granted")
    assert g["signal"] == 0 and g["ungranted"] == -EBADF, g
    sib = case(r, "sib")
    assert sib["to_sibling"] == -EPERM, sib
    assert CAP_BASE <= sib["to_parent"] < CAP_BASE + MAXCAP_SPACE, sib
    c = case(r, "caps")
    assert c["victim"] == CAP_BASE, c
    assert c["forge_status"] == 0 and c["signals_after_forge"] == 0, c
    assert c["granted_status"] == 0 and c["signals_after_granted"] == 1, c
    print(f"secev caps smp={smp}: slot reused after {c['reuse_tries']} tries")
    assert c["slot_reused"] == c["slot"] and c["before_exit"] == 0 and c["after_reuse"] == -ESRCH, c
    assert c["grant_self"] == c["grant_nospace"] == -EPERM, c
    assert c["grant_bad_handle"] == -EBADF, c
    assert CAP_BASE <= c["grant_child"] < CAP_BASE + MAXCAP_SPACE, c
    # sleeper_status 0: the grant arrived in the child's table
    assert c["sib_status"] == 0 and c["sleeper_status"] == 0, c
    assert c["spawn_bad_handle"] == c["spawn_junk_handle"] == -EBADF, c
    assert c["spawn_too_many"] == -EINVAL, c
    # victim, the exited VP's handle and the sibling's grant were held
    assert c["table_made"] == MAXCAP_SPACE - 3 and c["table_full"] == -ENOMEM, c
    assert c["table_held"] == MAXCAP_SPACE and c["drop_again"] == -EBADF, c
    assert c["after_drop"] == -EBADF, c
    # three spawns were refused: only forge, granted, sleeper and sib ran
    assert len(r.events("exit")) == 5, r.tail()


@pytest.mark.parametrize("smp", SMP)
def test_child_quota(boot, smp):
    r = boot("memcheck run=secev,children,140", smp=smp, timeout=240)
    done(r, 0)
    res = case(r, "children")
    assert res["made"] == 128 and res["error"] == -EAGAIN, res
    assert res["bad_status"] == 0 and res["again_status"] == 0, res


@pytest.mark.parametrize("smp", SMP)
@pytest.mark.parametrize("n", [2, 4])
def test_many_waiters(boot, smp, n):
    r = boot(f"memcheck run=secev,waiters,{n}", smp=smp, timeout=120)
    done(r, 0)
    res = case(r, "waiters")
    # Every VP waiting when the child ended gets its status; it is then
    # collected, so a later wait finds no child.
    assert res["returned"] == n, res
    assert res["ret"] == [res["child"]] * n and res["status"] == [7] * n, res
    assert res["wait_again"] == -ECHILD, res


@pytest.mark.parametrize("smp", SMP)
def test_space_ends_with_parked_vps(boot, smp):
    r = boot("memcheck run=secev:4,parked", smp=smp, timeout=60)
    done(r, 0)
    assert case(r, "parked")["nvp"] == 4, r.tail()


@pytest.mark.parametrize("smp", SMP)
def test_vp_ids_never_wrap(boot, smp):
    """progs/tests/idwrap.c, with VP ids started 100 below 2^32
    (vpidbase): a handle to the VP in slot 1 outlives it, and slot 1 is
    filled and emptied 200 times across the boundary. VP ids are 64-bit
    and never reused, so the stale handle is -ESRCH every time and a
    fresh one works; user code sees the ids' low 32 bits wrap. With
    32-bit ids the counter returns to the dead VP's id after 2^32
    creations and the stale handle reaches the VP in the slot then; this
    program does 1,300 create+exit cycles a second even under TCG with
    memcheck (cycles_per_s): 2^32 in 39 days there, far less on hardware. (The old kernel has no
    vpidbase word: the test fails there because the ids do not wrap.)"""
    r = boot(f"memcheck vpidbase={2**32 - 100} run=idwrap,200", smp=smp, timeout=240)
    done(r)
    res = only(r, "result", name="idwrap")
    assert res["first_signal"] == 0, res
    assert res["stale_reached"] == 0 and res["fresh_ok"] == 200, res
    assert res["last_id"] < res["first_id"], res      # the low 32 bits wrapped
