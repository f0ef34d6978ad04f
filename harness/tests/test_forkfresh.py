"""progs/posix/forkfresh.c: a thread stores into a page it has just got
(a demand-zero page's first touch, or a new mmap's), then publishes the
page's address, while main forks 300 times; each child must find the
word behind the address it sees.

A fork's copy made the parent's writable entries read-only under the
space lock, then, the lock dropped, shot down the other CPUs' TLBs. A
fault (or mmap) that had waited for the lock mapped its new page in the
parent alone, and its thread, still on a CPU with writable entries of
pages now shared with the child, published the address into the
child's memory too: the child read the address and a zero page (or no
mapping) behind it. That is how a forkwake child on kthread-2 died at
address 0x28 (test_forkwake.py). Now a path that maps a new page waits
out a fork's shootdown (kernel/fork.c, space_lock_settled).

`jitter` stretches the kernel's windows (a shake point between the
copy's unlock and its shootdown). Before the fix, lazy on kthread-2
lost words in 28 boots of 30 (300 forks each, 103 children in all);
the whole file failed kthread-2, fifo-2, tutor-2 and prio-2 (naive-2
lost 10 words in another boot); -smp 1 and serial det have no other
CPU to race. The map mode (a plain mmap's frames, map_frames) failed
only now and then before (2 children of 200 in one boot, a fault on
the address: no mapping behind it); it guards that path. det runs one
thread at a time: the thread yields every 64 pages for main's turn."""
import pytest
from helpers import done, result, PKGS_PAR, pkg_cases


def run(boot, conf, smp, mode):
    r = boot(f"jitter run=forkfresh,{conf},300,{mode}", smp=smp, timeout=200)
    res = result(r, "forkfresh")
    assert res["forks"] == 300 and res["bad"] == 0 and res["pages"] > 0, res
    done(r, 0)


@pytest.mark.parametrize("conf,smp", pkg_cases([f"pkg={p}" for p in PKGS_PAR]))
def test_a_fork_never_shows_a_touched_page_as_zeros(boot, conf, smp):
    run(boot, conf, smp, "lazy")


# A new mapping's window is the same code path's (map_frames): at -smp 2 only.
@pytest.mark.parametrize("conf", [f"pkg={p}" for p in PKGS_PAR])
def test_a_fork_never_shows_a_new_mapping_it_has_not_got(boot, conf):
    run(boot, conf, 2, "map")
