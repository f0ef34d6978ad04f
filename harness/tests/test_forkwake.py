"""progs/posix/forkwake.c: three threads lock and unlock one mutex while
main forks 200 times, an atfork prepare handler holding the mutex across
each fork; each child takes it once more and exits. Every fork leaves the
parent's pages copy-on-write, and the next writes break them while
threads sleep in the kernel on words there.

Two bugs hung it, both on kthread at -smp 2 (200 forks a boot):
- A private futex word was keyed by its frame (kernel/vpsys.c,
  futex_key): a break gave the parent a new frame and moved the page's
  sleepers to it only after dropping the space lock, so a waker on
  another CPU that read the new frame in between woke no one. On a
  loaded host the parent hung with all four threads parked, in 2 runs
  of 2 (after 735 and 72 forks; the watchdog's dump showed four futex
  waits and no child). Now the word is keyed by its address in its space.
- A child copied the mutex's internal lock while a worker held it to
  queue itself, and spun on it for good (spin_wait; the parent in its
  waitpid): 2 runs in 18 of the kernel with the first fix alone. Now the
  objects' locks hold a fork generation, and a child takes over a lock
  of an older one (ulib/pthread/pwait.h, plock).
And one crashed: a child died of a page fault at address 0x28 (its
unlock read a waiter node of zeros off the mutex's queue), 2 boots in
16 on kthread-2, each at its first fork. A worker's stack page first
touched during the fork's copy was mapped in the parent alone before
the copy's TLB shootdown, and the worker queued a node there through
a stale writable entry of the mutex's page, shared with the child. Now
no page is mapped in that window (kernel/fork.c, space_lock_settled;
test_forkfresh.py). A failing child prints its signal or status.
Every package must end it, every child exiting 0."""
import pytest
from helpers import done, result, PKGS_PAR, pkg_cases


@pytest.mark.parametrize("conf,smp", pkg_cases([f"pkg={p}" for p in PKGS_PAR]))
def test_forks_beside_a_contended_mutex_lose_no_wake(boot, conf, smp):
    r = boot(f"run=forkwake,{conf},200", smp=smp, timeout=170)
    res = result(r, "forkwake")
    assert res["forks"] == 200 and res["bad"] == 0, res
    done(r, 0)
