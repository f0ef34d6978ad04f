"""The atomics GCC calls instead of inlining (ulib/libc/atomic.c: 16-byte ones
on cmpxchg16b, other sizes under hashed locks), from racing pthreads on
every package at -smp 1 and 2 (progs/posix/atomics.c): an ABA-counted
Treiber stack whose 16-byte head C11 compare-exchange swaps, a 16-byte
counter whose adds carry into its high word, a 24-byte _Atomic struct
kept consistent by compare-exchange loops, the __sync_*_16 family and
__atomic_is_lock_free. Without ulib/libc/atomic.c the program does not link."""
import pytest
from helpers import self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_atomics(boot, pkg, smp):
    self_test(boot, "atomics", pkg, smp, 45)
