"""progs/posix/forklock.c: 200 forks while three threads loop on calls
that take the library's own locks (the descriptor table's: fcntl; the
working directory's: getcwd; the exit list's: atexit); each child takes
all three, dups and closes a descriptor and exits through its atexit
list. Before, a child forked while another thread held one of them
found it taken for good and spun: on kthread the boot hung after 26
forks (-smp 2) in its first run, as CI's credstorm on kthread-2 hung in
its fork-and-exec child (its exec's descriptor-table lock). Now fork
holds them across the copy (ulib/pthread/pfork.c). Every package must
finish it, at -smp 1 and 2.

Five more threads loop on the rest of the library's locks: fopen,
fprintf and fclose of a file; flockfile of a shared stream and stdin;
setenv/putenv/unsetenv/getenv (malloc under the environment's lock);
rand, lrand48, setlogmask; pthread_key_create/delete and tmpfile. Each
child uses them all and exits through its streams' flush. Before
(stream locks, flockfile owners and the stream list not reset in the
child; those spin locks not held across the copy) the boot hung: see
the commit for the rates.

Four more loop on big atomics (__atomic_load/store of 24 bytes: atomic.c's
locks), pthread_getcpuclockid and the CPU clocks (cpuclock.c's table),
futex wake/wait by syscall (futex.c's buckets), and pthread_create with
join or detach plus popen/pclose now and then; each child makes those
calls too. Before (those locks neither held across the copy nor reset in
the child; the forker's thread clock not restarted in the child) fifo-2,
prio-2, naive-2 and kthread-2 hung in a child and fifo-1, tutor-2 and
det-2 failed every child's clock_gettime of its own thread clock.

The boot runs with the kernel's watchdog (debug.c): a hang (seen once
in CI on prio-2 and kthread-2, not reproduced since) ends in a dump of
every CPU and VP (state, user rip, VP-page flags, kernel waits) instead
of a silent timeout. It is stretched by the host's load as the timeout
is (qemu.host_slowdown), and stays below it: a run takes 3 s on a quiet
host and up to 35 s at load 8 per CPU (2 CPUs), so it fires only on a
run far slower than any seen."""
import pytest
from harness import qemu
from helpers import PACKAGES, done, passed

CONFS = [f"pkg={p}" for p in PACKAGES] + ["pkg=det"]
TIMEOUT, WATCHDOG = 120, 100     # s (host), s of guest time, both * load


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("conf", CONFS)
def test_fork_while_threads_hold_library_locks(boot, conf, smp):
    wd = int(WATCHDOG * qemu.host_slowdown())
    r = boot(f"watchdog={wd} run=forklock,{conf}", smp=smp, timeout=TIMEOUT)
    res = passed(r, "forklock", at_least=200)
    assert res["forks"] == 200, res
    done(r, 0)
