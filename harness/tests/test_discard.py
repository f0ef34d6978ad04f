"""madvise(MADV_DONTNEED / MADV_FREE) on SYS_discard (kernel/discard.c):
progs/posix/discard.c on every package at -smp 1 and 2. 64 written pages
read as zeros afterwards, stay writable, and give their 64 frames back
(ulib zeroed them in user mode before and kept them all: 0 came back); a
range of read-write, read-only and PROT_NONE pages keeps each page's
access; a half-touched demand-zero region; a hole is ENOMEM with nothing
changed; two threads writing their pages while main discards them 200
times read back only 0 or their own value, and every frame comes back."""
import pytest
from helpers import done, result, self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_discard(boot, pkg, smp):
    self_test(boot, "discard", pkg, smp, 39)


def test_discard_under_the_race_shaker(boot):
    r = boot("memcheck jitter=7 run=discard,pkg=fifo", smp=2, timeout=120)
    res = result(r, "discard")
    assert res["failures"] == 0 and res["checks"] >= 39, r.tail()
    done(r, 0)
