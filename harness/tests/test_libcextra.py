"""progs/posix/libcextra: the headers and functions portable Linux code
expects beyond libcposix's (docs/libc.md): <malloc.h>, <features.h>,
<sys/cdefs.h>, <endian.h>/<byteswap.h> conversions, times() ticks (real
and the process's processor time), <sysexits.h>, <sys/param.h> bit and
rounding macros, <search.h> (lfind/lsearch, tsearch kept balanced over
ascending keys, tdelete, twalk in order, a growing hsearch table,
insque/remque), backtrace() through three frames in main and in a
pthread, getrlimit/setrlimit values and errors, madvise(MADV_DONTNEED)
reading back zeros while the neighbouring pages keep their data, named
semaphores (same object per name, EEXIST/ENOENT/EINVAL/ENAMETOOLONG,
unlink while open, a post by name from another thread), the drand48
family against glibc's values, get_nprocs, and on_exit in the atexit
order with the exit status. The program does not build without them."""
import re

import pytest
from helpers import done, result


def check_run(r, status):
    done(r, status)
    res = result(r, "libcextra")
    assert res["failures"] == 0 and res["checks"] >= 1500, r.tail()
    lines = r.lines
    # backtrace_symbols: three "[0x...]" frames; backtrace_symbols_fd: the first two again.
    bt = [l for l in lines if l.startswith("bt ")]
    assert len(bt) == 3 and all(re.fullmatch(r"bt \[0x[0-9a-f]+\]", l) for l in bt), bt
    i = lines.index(next(l for l in lines if l.startswith("@result")))
    assert lines[i + 1:i + 3] == [b[3:] for b in bt[:2]], r.tail()
    # exit functions: last registered first, on_exit given the status and its argument.
    assert lines[i + 3:i + 6] == ["atexit 2", f"on_exit {status} hello", "atexit 1"], r.tail()


@pytest.mark.parametrize("smp", [1, 2])
def test_libcextra(boot, smp):
    check_run(boot(f"run=libcextra,{smp}", smp=smp, timeout=120), 0)


@pytest.mark.parametrize("pkg", ["kthread", "naive"])
def test_libcextra_other_packages_and_status(boot, pkg):
    """backtrace in a pthread of a package whose threads are VPs (kthread)
    or classic (naive); exit(5) reaches on_exit's function as 5."""
    check_run(boot(f"run=libcextra,pkg={pkg},2,5", smp=2, timeout=120), 5)
