"""OFD and POSIX record locks under forks, exits and execs at once
(progs/posix/ofdstorm; kernel/flock.c's payer search when a payer ends):
three processes set and clear OFD and POSIX locks on their own open
files of one file, with children that set OFD records on their parent's
open file and end or exec and end, while a chain of 8 generations, each
forking the holder of its open file and ending (every other one after an
exec that keeps the descriptor), checks at each step that the process
holding the file pays for every record the chain made and none is
unpaid (INFO_LOCKS 0 and 2: counts, no time). At the end no lock is
left in the kernel, none unpaid, and every frame is back (an audited
child under memcheck). Every package at -smp 1 and 2 (det: its one
turn leaves the stirrers' waits out of nothing: no lock here waits)."""
import pytest
from helpers import audited_disk_boot, needs_e2fsprogs, pkg_cases

pytestmark = needs_e2fsprogs


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_ofd_payers_under_fork_exec_exit_storm(boot, tmp_path, pkg, smp):
    r, _ = audited_disk_boot(boot, tmp_path, "ofdstorm", pkg, smp, timeout=240)
    assert "ofdstorm: chain: 7 generations, bad 0;" in r.log, r.tail()
    assert "pays" not in r.log, r.tail()
