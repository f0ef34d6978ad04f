"""Page tables an unmap empties are freed (kernel/vm.c vm_prune, after
the shootdown: kernel/tlb.c). progs/posix/ptfree.c maps and unmaps a
page at 3000 fixed addresses 1 GiB apart, 64 KiB where the kernel places
it 20000 times (next-fit: ever higher), and makes 1000 detached threads
one after another, each create unmapping one stack and mapping another
(test_createsig's taker once ended a boot out of memory so, with 90,135
table pages). The space's charge (INFO_MEM_CHARGED, which counts its
table pages) must not grow by more than 256 KiB over any phase. Before:
23,988 KiB (fixed), 2,660 KiB (placed), 2,044 KiB (threads, naive-2),
on every package. Under memcheck the space's end also checks that its
table count matches the tables it holds. Counted, not timed."""
import pytest
from helpers import done, result, PKGS_PAR, pkg_cases

BOUND_KIB = 256


def check(r):
    res = result(r, "ptfree")
    assert res["failures"] == 0 and res["threads"] == 1000, r.tail()
    for phase in ("fixed_kib", "placed_kib", "threads_kib"):
        assert res[phase] < BOUND_KIB, (phase, res)
    done(r, 0)


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_unmapped_tables_are_freed(boot, pkg, smp):
    check(boot(f"memcheck run=ptfree,pkg={pkg}", smp=smp, timeout=300))


@pytest.mark.parametrize("words", ["memcheck jitter=11", "memcheck jitter=5"])
def test_unmapped_tables_are_freed_under_jitter(boot, words):
    check(boot(f"{words} run=ptfree,pkg=kthread", smp=2, timeout=300))
