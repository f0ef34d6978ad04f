"""fifo's time slices share the CPUs among threads that never yield nor
block (progs/tests/cpushare.c): more compute-bound threads than VPs, and a
thread sleeping in the kernel that must get a CPU back soon after it wakes.

Under icount, for 200 ms of guest time (the host cannot skew it), with the
20 us tick that makes QEMU's icount turns among vCPUs short (see
test_conformance.py's yield fairness). Balancing used to move a thread from
one queue to the other at every slice end whenever the queues differed by
one, the two then swapping roles: the thread it moved each time waited
again at the other queue's tail. At -smp 2 with 5 threads two spinners got
a fifteenth of the others' share, and the sleeper woke 780 ms late."""
import pytest
from helpers import done, result

MS = 200
SLICE_MS = 1                     # fifo_slice_ns
QUANTUM_MS = 10                  # the kernel's default
# (CPUs, VPs, threads): a VP per CPU, and more VPs than CPUs
CASES = [(1, 1, 3), (1, 1, 9), (2, 2, 3), (2, 2, 5), (2, 2, 9), (2, 2, 17), (4, 4, 5),
         (4, 4, 9), (4, 4, 17), (1, 4, 9), (2, 4, 9)]


@pytest.mark.parametrize("smp,vps,threads", CASES, ids=[f"smp{s}-vps{v}-t{t}" for s, v, t in CASES])
def test_compute_bound_threads_share_the_cpus(boot, smp, vps, threads):
    tick = "tick=20 " if smp > 1 else ""
    r = boot(f"{tick}run=cpushare,fifo,{threads},{MS},{vps}", smp=smp, icount=True, timeout=120)
    done(r, 0)
    res = result(r, "cpushare")
    assert (res["threads"], res["vps"], res["ms"]) == (threads, vps, MS), res
    c = res["counts"]
    assert min(c) > 0, f"a thread never ran: {res}"
    # Shares within 2x (measured: at most 1.43x); the bug gave 5-17x.
    assert max(c) <= 2 * min(c), res
    # The sleeper waits behind at most the threads queued on its VP, a
    # slice each (measured: 16.1 ms with 17 threads on one CPU), and with
    # more VPs than CPUs for its VP's turn (29.8 ms, 4 VPs on one CPU);
    # when it waits for both, the slice under way when its VP comes back
    # adds one more (17.9 ms, 9 threads on 4 VPs on 2 CPUs: a build whose
    # user code only moved took the VP wait that the build before did not).
    wait_ms = (threads // smp + 4) * SLICE_MS + (vps // smp - 1) * QUANTUM_MS
    assert res["late_ns"] <= wait_ms * 1_000_000, res
    # A thread waits behind every VP's running one: their slices all run
    # out, while the VP runs (with more VPs than CPUs, a CPU's worth).
    assert res["slices"] >= smp * MS // SLICE_MS * 8 // 10, res
