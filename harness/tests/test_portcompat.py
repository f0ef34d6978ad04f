"""progs/posix/portcompat: what third-party Linux pthread programs use
beyond libcextra's set (docs/libc.md), on every package at -smp 1 and 2.
headers: the old alias headers (<memory.h>, <syscall.h>, <wait.h>,
<sys/poll.h>, <sys/fcntl.h>, <sys/errno.h>) and <sys/queue.h>: a STAILQ
task queue drained by four pthreads, and every list kind's insert, walk
(both ways where there are two), remove while walking and tail upkeep.
fenv: <fenv.h>'s flags raised by real operations, rounding modes on both
units (double and long double, lrint), environments saved, held and
updated, and a thread's rounding mode kept across switches while main's
stays to nearest.
futex: syscall(SYS_futex): Drepper's three-state mutex over it kept by
four threads (20000 increments), EAGAIN on a changed word, relative and
absolute (CLOCK_REALTIME) timeouts, EINVAL cases, wake counts and
bitsets among three waiters.
names: prctl(PR_SET_NAME) names the thread as pthread_getname_np sees it,
cutting a long name to 15 characters as Linux does, and a thread never
named reads the program's name. sysconf: the cache figures from CPUID
and the limits programs size buffers by. rand: glibc's sequences (rand,
srand(0), random, rand_r, random_r on two table sizes, initstate and
setstate), and four threads drawing from the shared generator get each
number of the one sequence once. misc: fork (ENOSYS), execvp (ENOENT)
and popen fail cleanly; nice/getpriority/setpriority read back and clamp;
mlock and mlockall succeed (nothing is paged out) and check their flags;
readv/writev through a pipe; ftime; asctime_r/ctime_r; mempcpy, rawmemchr,
explicit_bzero. stack: Linux's 8 MiB default stack (pthread_attr_init,
RLIMIT_STACK), 1 MiB of locals in main and in 32 threads at once made
without attributes (a 160 KiB one killed the program before: 64 KiB
stacks); pthread_getattr_np's stack (0 before) holds the caller's locals
in main and in threads, with the size they were made with; threads run on
stacks the program gives (pthread_attr_setstack: mmap'd and
posix_memalign'd, freed after the join; only recorded before) and
getattr_np gives them back. gnu: printf's %m (with a width) and, under _GNU_SOURCE, GNU's
strerror_r returning the message. killproc: kill(getpid(), SIGUSR1) from
a thread that blocks it runs the handler in the one thread that does
not, while it sleeps and while it waits on a condition, ten times (each
stayed pending for the program before, and the sender waited for ever).
keys: 1024 keys as glibc has (128 before), values and destructors on the
highest ones. prio: Linux's priority ranges (SCHED_FIFO/RR 1..99,
SCHED_OTHER 0; 0..7 before, so a priority of 10 or 80 was EINVAL),
explicit and inherited scheduling reported back, ceilings 1..99, and a
PTHREAD_PRIO_INHERIT mutex (ENOTSUP before) kept by four threads.
robust: robust mutexes (ENOTSUP before): an owner's exit gives the next
lock, or a queued waiter, EOWNERDEAD; consistent makes it normal, an
unlock without it not recoverable. getopt: GNU's argument order (options after operands, argv permuted, '+'
for POSIX's), eight cases against glibc 2.36's outcomes (POSIX order
before: options after the first operand were not seen).
The program does not build without them."""
import pytest
from helpers import done, result, self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_portcompat(boot, pkg, smp):
    self_test(boot, "portcompat", pkg, smp, 330)


@pytest.mark.parametrize("smp", [1, 2])
def test_priority_inheritance(boot, smp):
    """pinherit on prio with one VP: main (SCHED_FIFO 90) waits for a mutex
    a SCHED_FIFO 10 thread holds while a SCHED_FIFO 50 one yields 2000
    times. With PTHREAD_PRIO_NONE the middle thread finishes first (the
    inversion is real here); with PTHREAD_PRIO_INHERIT the holder is
    boosted to 90 and moved up its package's queues (thread_ops.setprio,
    prio's reprio), so main gets the mutex first."""
    r = boot("run=portcompat,pkg=prio,vps=1,pinherit", smp=smp, timeout=120)
    res = result(r, "portcompat")
    assert res["failures"] == 0 and res["checks"] == 2, r.tail()
    done(r, 0)


@pytest.mark.parametrize("smp", [1, 2])
def test_waiters_woken_highest_priority_first(boot, smp):
    """pwaitq on prio with one VP: SCHED_FIFO 35, 10, 80, 20, 60 queue in
    that order on a mutex, a condition variable and a semaphore; prio
    orders waiters (thread_ops.wait_first, <animart/waitq.h>), so the
    unlock, each signal and each post reach 80 first, then 60, 35, 20,
    10. (FIFO, before: 35 10 80 20 60.)"""
    r = boot("run=portcompat,pkg=prio,vps=1,pwaitq", smp=smp, timeout=120)
    res = result(r, "portcompat")
    assert res["failures"] == 0 and res["checks"] == 3, r.tail()
    for kind in ("mutex", "cond", "sem"):
        assert f"pwaitq {kind}: 80 60 35 20 10" in r.lines, r.tail()
    done(r, 0)


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_signal_reaches_computing_thread(boot, pkg, smp):
    """sigspin and sigcompute with two VPs (one is taken by a thread that
    only computes; kthread makes a VP per thread anyway): alarm(1)'s
    SIGALRM runs its handler in a thread spinning in pthread_spin_lock,
    and five kill(getpid(), SIGUSR1) from a thread that blocks it run the
    handler in a worker that only computes, each within 20 s of guest
    time (portcompat's SIG_BOUND_S: the delivery is due at the next time
    slice or upcall, or the classic VP's next return to user mode). Before,
    the signals stayed pending and the waits timed out on every package."""
    r = boot(f"run=portcompat,pkg={pkg},vps=2,sigspin,sigcompute", smp=smp, timeout=180)
    res = result(r, "portcompat")
    assert res["failures"] == 0 and res["checks"] == 13, r.tail()
    done(r, 0)


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_futex_wake_waits_for_a_late_waiter(boot, pkg, smp):
    """futexlate: futex's bitset wakes with the bit-2 waiter 60 ms late,
    past main's 20 ms settle. futex's checks took that settle for a
    promise: a wake for bit 2 that found nobody yet failed, and the
    waiter, in the wait a moment later, then waited for ever (the
    fresh-clone-style loaded run saw it once on kthread-2, 1 of 14 full
    portcompat boots: 'FAIL line 451 ... == 1', then a hang). Now a wake
    that finds nobody is asked again, and each wake must end exactly one
    waiter, the one its bits name. Before: FAIL and a hang on kthread-2
    and prio-2; after: 5 checks pass."""
    r = boot(f"run=portcompat,pkg={pkg},futexlate", smp=smp, timeout=60)
    res = result(r, "portcompat")
    assert res["failures"] == 0 and res["checks"] == 5, r.tail()
    done(r, 0)
