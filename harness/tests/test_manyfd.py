"""A process has Linux's default 1,024 descriptors (progs/posix/manyfd.c;
ulib/libc/fd.c's table and the kernel's, MAXFILE_SPACE in
<anima/file.h>): getrlimit(RLIMIT_NOFILE), sysconf(_SC_OPEN_MAX) and
getdtablesize say 1024; opens succeed up to fd 1023 and then EMFILE
(pipe, dup, open); dup2/dup3/F_DUPFD up to 1023 (1024: EBADF, EINVAL);
select on fd 1000; a fork's child has fds 999 and 1000, its exec keeps
1000 and not 999 (FD_CLOEXEC); posix_spawn's dup2 action onto 1010.
Hostile: 16 children, four at a time, each open 1,021 files and end
without closing: every space's full table is charged to it, and every
byte comes back (avail_lost 0, memcheck). Before, the table was 64: EMFILE
at fd 64. Descriptor code is package-independent."""
import pytest
from helpers import audit_passed, needs_e2fsprogs, process_run, pkg_cases

pytestmark = needs_e2fsprogs


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread", "det"]))
def test_a_process_has_1024_descriptors(boot, tmp_path, pkg, smp):
    r, _ = process_run(boot, tmp_path, "manyfd", pkg, smp, timeout=240)
    res = audit_passed(r, "manyfd")
    assert res["avail_lost"] == 0, res
