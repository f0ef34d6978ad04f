"""progs/posix/libcstd: what running a C library test suite against
ulib found wrong (issue 34), checked from the standard's text on every
package at -smp 1 and 2: fscanf/vfscanf on a stream (they returned EOF or
ENOSYS for any input before), with a matching failure leaving its
character unread, an item that only begins a number ("0x", "2.5e+") a
matching failure, and EOF only at end of input; the same rules for
sscanf ("4e" with %lf was 1); stat/lstat of /dev/null (ENOENT before)
and ENOTDIR beneath it; a robust mutex destroyed by its holder (EBUSY
before, and its exit then wrote to the freed memory); strtof of numbers
whose nearest double is a float midpoint (rounded twice before) and
setrlimit lowering a limit (EPERM before) and RLIMIT_NOFILE bounding new
descriptors (it bounded nothing); wcsstr, wcsspn, wcstol,
the other wide-string searches and numbers, mbsrtowcs and wcsrtombs,
and <wctype.h> (missing before)."""
import pytest
from helpers import self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_libcstd(boot, pkg, smp):
    self_test(boot, "libcstd", pkg, smp, 70)
