"""The kernel's descriptor table (kernel/sysfile.c) since it grows to
1,024 (progs/posix/fdrace.c, raw descriptor calls).

INFO_FILES -1 says how many 64-descriptor words hold every open
descriptor: 0 with none, 1 with a pipe, 4 with one at 200, down again as
they close. ulib's start (fd.c's __fd_inherit) asks it first and then
only those words: a program with none makes one call, not 16
(startcost under --icount: a spawned child's start 978,103 -> 961,617
instructions). Before, INFO_FILES -1 was -EINVAL.

Threads of one process on a 2-VP package (fifo, vps=2) and on kthread
make pipes and dups past 64 and 128 descriptors at once (the table grows
while they race), close and make more at random, and one forks meanwhile
(its child copies the table and ends: the per-file passes of fork and
teardown): no descriptor is returned twice, every close succeeds, and
once all are closed no word holds one and the space's charge is what it
was after the first round. Under lockcheck: the pass lock (fmark) is a
leaf. Package-independent descriptor code: words on fifo alone."""
import pytest
from helpers import done, result


def test_info_files_words(boot):
    r = boot("run=fdrace,pkg=fifo,words", smp=1, timeout=120)
    res = result(r, "fdrace")
    assert res["checks"] >= 200 and res["failures"] == 0, r.tail()
    done(r, 0)


@pytest.mark.parametrize("pkg,smp", [pytest.param("fifo,vps=2", 2, id="fifo-vps2-2"),
                                     pytest.param("fifo,vps=2", 1, id="fifo-vps2-1"),
                                     pytest.param("kthread", 2, id="kthread-2"),
                                     pytest.param("kthread", 1, id="kthread-1")])
def test_threads_race_on_the_table(boot, pkg, smp):
    r = boot(f"lockcheck run=fdrace,pkg={pkg},race,4", smp=smp, timeout=300)
    res = result(r, "fdrace")
    assert res["checks"] > 4000 and res["failures"] == 0, r.tail()
    done(r, 0)
