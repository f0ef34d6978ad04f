"""mprotect and mmap(PROT_NONE) on SYS_protect (kernel/protect.c,
ulib/libc/mman.c). progs/posix/mprot.c on every package at -smp 1 and 2: a
page made read-only and writable again, code made executable and called,
address space reserved with PROT_NONE and committed in parts, a kernel
copy-out to a read-only page refused (EFAULT), bad calls refused with
nothing changed, the space's 16,384 demand-zero regions running out (ENOMEM), a
terabyte of demand-zero space protected in one call, 4 threads protecting
their own pages. The faults themselves: test_faults.py (protro, protnone,
protexec). And the TLB: a thread on another CPU that keeps writing a page
main makes read-only is stopped by its next write once mprotect returned
(without the shootdown it wrote 7 million more times in 50 ms)."""
import re

import pytest
from helpers import self_test, done, only, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_mprotect(boot, pkg, smp):
    self_test(boot, "mprot", pkg, smp, 50)


@pytest.mark.parametrize("pkg", ["kthread", "fifo"])
def test_mprotect_reaches_the_other_cpus(boot, pkg):
    r = boot(f"run=mprot,pkg={pkg},shoot", smp=2, timeout=60)
    assert not any("still writing" in l for l in r.lines), r.tail()
    target = int(next(re.search(r"target (0x[0-9a-f]+)", l)[1] for l in r.lines if "mprot: target" in l), 16)
    ex = only(r, "exit", prog="mprot")
    assert ex["status"] == -1 and ex["killed"] == "page fault", r.tail()
    assert target <= int(ex["addr"], 16) < target + 4096, ex
    assert any("(write, protection)" in l for l in r.lines if l.startswith("mprot[")), r.tail()
    done(r, 63)
