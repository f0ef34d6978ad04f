"""Blocking operations, classic and with upcalls (progs/tests/blocking.c):
demand-zero paging with and without latency, futexes and their errors,
sleep. A classic VP blocks as a whole; a VP with upcalls enabled loses only
the blocked thread (EV_BLOCKED/EV_UNBLOCKED) and keeps running another. Only
lower bounds on time are checked: the host may be slow, never fast."""
import pytest
from helpers import done, result

MS = 1_000_000
LATENCY = 5 * MS
EV_BLOCKED, EV_UNBLOCKED, EV_SIGNAL = 1, 2, 6
BLK_SLEEP, BLK_IO, BLK_FUTEX, BLK_PAGE = 1, 2, 3, 4
TWO_VPS = {"futex-classic", "futex-upcall", "sleep-classic"}
SMP = [1, 2]


def run(boot, mode, smp):
    prog = "blocking:2" if mode in TWO_VPS else "blocking"
    # -icount: guest time advances only with guest instructions, so a host
    # stall (two QEMUs on two cores) cannot pass a whole 5 ms wait before
    # the other VP or thread has run at all: "progress > 0" stays a fact
    # about the kernel, not about the host's load.
    r = boot(f"run={prog},{mode}", smp=smp, timeout=60, icount=True)
    res = result(r, "blocking")
    assert res["mode"] == mode, res
    assert res["failures"] == 0, f"the guest's own checks failed: {res}\n{r.tail()}"
    done(r, 0)
    return res


def block_pairs(res, kind, n, result=0):
    """Events are n (EV_BLOCKED, EV_UNBLOCKED) pairs for the worker, arg `kind`."""
    evs = res["events"]
    assert [e["type"] for e in evs] == [EV_BLOCKED, EV_UNBLOCKED] * n, res
    assert all(e["arg"] == kind and e["worker"] == 1 for e in evs), res
    assert all(e["result"] == result for e in evs if e["type"] == EV_UNBLOCKED), res


@pytest.mark.parametrize("smp", SMP)
def test_lazy_zero_latency(boot, smp):
    res = run(boot, "lazy0", smp)
    assert res["zero"] == 1 and res["stick"] == 1, res
    assert res["new_blocks"] == 0, res       # pages appear at once: nothing blocks


@pytest.mark.parametrize("smp", SMP)
def test_lazy_latency_classic(boot, smp):
    res = run(boot, "lazy-classic", smp)
    assert res["zero"] == 1 and res["stick"] == 1, res
    assert all(t >= LATENCY for t in res["first_ns"]), res   # each first touch waits
    assert res["new_blocks"] == 4 and res["upcalls"] == 0, res  # the VP blocked, no upcalls


@pytest.mark.parametrize("smp", SMP)
def test_lazy_latency_upcall(boot, smp):
    res = run(boot, "lazy-upcall", smp)
    assert res["zero"] == 1 and res["stick"] == 1, res      # the faulting write was redone
    assert all(t >= LATENCY for t in res["elapsed_ns"]), res
    assert res["min_progress"] > 0, res     # the other thread ran during every fault
    block_pairs(res, BLK_PAGE, 4)
    assert res["blocks"] == res["unblocks"] == 4, res
    assert res["upcalls"] == 8, res


@pytest.mark.parametrize("smp", SMP)
def test_lazy_fault_in_handler_blocks_vp(boot, smp):
    res = run(boot, "lazy-handler", smp)
    assert res["handler_runs"] == 1 and res["nested"] == 0, res
    assert res["upcalls_during_fault"] == 0 and res["page_events"] == 0, res
    assert res["blocks_during_fault"] == 1, res
    assert res["elapsed_ns"] >= LATENCY and res["value"] == 0x77, res
    assert [e["type"] for e in res["events"]] == [EV_SIGNAL], res


@pytest.mark.parametrize("smp", SMP)
def test_futex_classic(boot, smp):
    res = run(boot, "futex-classic", smp)
    assert res["woken"] == 1 and res["waiter_done"] == 1 and res["waiter_ret"] == 0, res
    assert res["upcalls"] == 0 and res["blocks"] >= 1, res   # VP 1 blocked as a whole


@pytest.mark.parametrize("smp", SMP)
def test_futex_upcall(boot, smp):
    res = run(boot, "futex-upcall", smp)
    assert res["woken"] == 1 and res["waiter_done"] == 1 and res["waiter_ret"] == 0, res
    assert res["progress"] > 0, res         # VP 1's other thread ran meanwhile
    block_pairs(res, BLK_FUTEX, 1)


@pytest.mark.parametrize("smp", SMP)
def test_futex_errors(boot, smp):
    res = run(boot, "futex-errors", smp)
    assert res["eagain"] == -res["EAGAIN"], res
    assert res["etimedout"] == -res["ETIMEDOUT"] and res["timeout_ns"] >= 3 * MS, res
    for k in ("efault_unmapped", "efault_kernel", "efault_null", "wake_efault"):
        assert res[k] == -res["EFAULT"], (k, res)
    assert res["einval"] == res["wake_einval"] == -res["EINVAL"], res
    assert res["wake_none"] == 0, res


@pytest.mark.parametrize("smp", SMP)
def test_futex_timeout_upcall(boot, smp):
    res = run(boot, "futex-timeout-upcall", smp)
    assert res["ret"] == -res["ETIMEDOUT"] and res["elapsed_ns"] >= LATENCY, res
    assert res["progress"] > 0, res
    block_pairs(res, BLK_FUTEX, 1, result=-res["ETIMEDOUT"])


@pytest.mark.parametrize("smp", SMP)
def test_sleep_classic_blocks_vp(boot, smp):
    # At -smp 1 VP 1 can only make progress if sleeping VP 0 gave up the CPU.
    res = run(boot, "sleep-classic", smp)
    assert res["ncpu"] == smp, res
    assert all(t >= LATENCY for t in res["elapsed_ns"]), res
    assert all(p > 0 for p in res["progress"]), res
    assert res["new_blocks"] == 3 and res["upcalls"] == 0, res


@pytest.mark.parametrize("smp", SMP)
def test_timer_of_vp_ending_with_its_space(boot, smp):
    # progs/tests/timerexit.c: a VP ends with its space while its user timer is
    # set and another VP of the space waits for a CPU. Its timer must go
    # with it: before the fix the timer fired into the freed VP (the kernel
    # now panics on that: 3 of 3 runs without the fix did).
    r = boot("quantum=2 run=timerexit", smp=smp, timeout=60)
    res = result(r, "timerexit")
    assert res["ok"] and res["children_ok"] == res["rounds"], f"{res}\n{r.tail()}"
    done(r, 0)
