"""Hostile calls of SYS_tty, the console's one set of settings
(progs/posix/ttyrace; kernel/tty.c): a thread sets two patterns in turn
while another thread gets them 20,000 times and a child process 5,000; each get
must be one of the patterns or the settings found, whole (a torn copy
fails). Gets into read-only, unmapped, kernel, non-canonical and page-0
memory and into a buffer running off its mapping are -EFAULT, sets from
the unreadable ones too, each leaving the settings as they were (with
tty.c's copyin made straight into the settings, 7 checks fail); a set
from a read-only page works; bad ops are -EINVAL. Under memcheck, on
packages whose threads are user threads on two VPs (fifo, naive) and
VPs (kthread), at -smp 1 and 2."""
import pytest
from helpers import passed, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "naive", "kthread"]))
def test_tty_set_get_race_and_bad_memory(boot, pkg, smp):
    r = boot(f"memcheck run=ttyrace,pkg={pkg},vps=2", smp=smp, timeout=120)
    res = passed(r, "ttyrace", 30)
    assert res["torn"] == 0 and res["gets"] == 20000, res
