"""progs/posix/libcfmt: the formats a C library test suite found missing
in ulib (issue 34), each checked against glibc's string for the same
call: printf's %a/%A (hex floats, exact, precision rounded to
nearest-even, subnormals, long double, flags, width, a NaN's sign) and
strftime's C99/POSIX conversions with glibc's flags, width and E/O
modifiers plus POSIX.1-2008's '+' flag; every package at -smp 1 and 2."""
import pytest
from helpers import self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_libcfmt(boot, pkg, smp):
    self_test(boot, "libcfmt", pkg, smp, 52)
