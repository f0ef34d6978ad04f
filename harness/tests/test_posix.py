"""POSIX threads (ulib/pthread/, docs/posix.md) on every package of the
build, at -smp 1 and 2: progs/posix/ptest, an ordinary pthreads program
run by the POSIX start with the package named on its command line
(pkg=NAME), covers every area (create/join/detach without leaks, once,
mutex types and timeouts, condition variables on both clocks, rwlocks,
barriers, spin locks, keys, __thread and errno across switches and VPs,
cancellation, semaphores, scheduling attributes, message queues, getrusage, the process's
CPU-time clock, threads' CPU-time clocks, stdio's stream locks, signal handlers, and a handler
that runs inside a blocked wait: sigcond, sigmutex, sigjoin, sigsem,
sigsleep, each also with the signal blocked). Then how a
POSIX program ends: pthread_exit from main, exit() from another thread,
and an unknown package."""
import pytest
from helpers import PACKAGES, done, only, self_test, pkg_cases

AREAS = ["create", "stack", "detach", "once", "mutex", "cond", "rwlock", "barrier",
         "keys", "tls", "cancel", "sem", "sched", "mqueue", "rusage", "cputime", "threadcpu", "stdio", "signal",
         "sigmask", "sigcond", "sigmutex", "sigjoin", "sigsem", "sigsleep"]


def areas(r):
    return {e["name"][len("ptest."):]: e for e in r.events("result")
            if "ok" in e and e["name"].startswith("ptest.")}


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_ptest(boot, pkg, smp):
    r = boot(f"run=ptest,pkg={pkg}", smp=smp, timeout=240)
    ptest_passed(r, f"{pkg} smp={smp}")


def ptest_passed(r, label):
    """ptest's run r (label names it) passed: every area reported, none
    failed, and flockfile kept the holder's three lines together (the
    other thread printed after them: it waited for the last
    funlockfile); the run ended with status 0."""
    got = areas(r)
    failed = {a: got[a].get("why") for a in got if not got[a]["ok"]}
    assert not failed, f"{label}: {failed}\n{r.tail()}"
    assert sorted(got) == sorted(AREAS), r.tail()
    flk = [l for l in r.lines if l.startswith("flk ")]
    assert flk == ["flk A 0", "flk A 1", "flk A 2", "flk B"], flk
    done(r)


# Packages whose VPs take upcalls, so that a running thread can be
# interrupted (struct thread_ops.interrupt: the VP runtime's rt_interrupt).
INTERRUPTIBLE = {"fifo", "tutor", "prio"}


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_signal_to_a_computing_thread(boot, pkg, smp):
    """pthread_kill of a thread that only computes (no library call but
    the clock): on a package with upcalls its handler runs there while it
    computes (its VP is interrupted and the runtime resumes it through the
    handler), and its registers, integer and floating point, come back
    intact; on every package it runs by the thread's next sched_yield."""
    r = boot(f"run=ptest,pkg={pkg},vps=2,sigasync", smp=smp, timeout=60)
    done(r)
    res = only(r, "result", name="ptest.sigasync")
    assert res["kill"] == 0 and res["intact"] == 1, res
    assert res["by_yield"] == 1 and res["in_target"] == 1, res
    if pkg in INTERRUPTIBLE:
        assert res["delivered"] == 1 and res["ms"] >= 0, res   # (before its 2 s were over)


def test_signal_to_a_computing_thread_one_vp(boot):
    """fifo with one VP: main runs at the computing thread's time slices,
    and the handler at the next one after the post."""
    r = boot("run=ptest,pkg=fifo,vps=1,sigasync", smp=1, timeout=60)
    done(r)
    res = only(r, "result", name="ptest.sigasync")
    assert res["delivered"] == 1 and res["intact"] == 1 and res["in_target"] == 1, res


@pytest.mark.parametrize("pkg", PACKAGES)
def test_pthread_exit_from_main(boot, pkg):
    """main's pthread_exit leaves the others running; the last ends the
    process with status 0."""
    r = boot(f"run=ptest,pkg={pkg},mainexit", smp=2, timeout=60)
    assert [e["name"] for e in r.events("result")] == ["ptest.mainexit"], r.tail()
    done(r, 0)


def test_abort_runs_the_sigabrt_handler(boot):
    """abort() runs a SIGABRT handler first, then still ends the program
    with status 134."""
    r = boot("run=ptest,pkg=fifo,sigabort", smp=1, timeout=60)
    assert "sigabrt handler 6" in r.lines, r.tail()
    assert r.lines.index("sigabrt handler 6") < r.lines.index("abort"), r.tail()
    assert r.kind == "done", r.tail()
    only(r, "exit", prog="ptest", status=134)


@pytest.mark.parametrize("pkg", ["fifo", "kthread"])
def test_exit_from_a_thread_ends_the_space(boot, pkg):
    r = boot(f"run=ptest,pkg={pkg},vps=2,exitcode", smp=2, timeout=60)
    done(r, 7)


def test_unknown_package(boot):
    r = boot("run=ptest,pkg=nosuch", smp=1, timeout=60)
    assert "no thread package called nosuch" in r.log, r.tail()
    done(r, 2)


@pytest.mark.parametrize("pkg", ["fifo", "kthread"])
def test_posix_layer_cost(boot, pkg):
    """progs/posix/pbench under icount: pthreads against the interface it
    is built on, side by side in one run (docs/posix.md). The issue's
    target: at most 10% more instructions, on both packages (fifo 1.044
    and 1.089 when this was set, kthread 1.009 and 1.008)."""
    r = boot(f"run=pbench,pkg={pkg},vps=1", smp=1, icount=True, timeout=300)
    done(r)
    o = [e for e in r.events("result") if e["name"] == f"posix.{pkg}.overhead"]
    assert len(o) == 1, r.tail()
    assert o[0]["condpingpong"] <= 1.10, o[0]
    assert o[0]["create_join"] <= 1.10, o[0]


@pytest.mark.parametrize("pkg", ["fifo", "naive", "prio"])
def test_more_vps_than_cpus(boot, pkg):
    """Threads (and their TLS, errno and timed waits) moving among three
    VPs on one CPU, where VPs are preempted in the middle of everything."""
    areas_run = ["tls", "mutex", "cond", "sem", "rwlock", "barrier"]
    r = boot(f"quantum=2 run=ptest,pkg={pkg},vps=3,{','.join(areas_run)}", smp=1, timeout=240)
    got = areas(r)
    failed = {a: got[a].get("why") for a in got if not got[a]["ok"]}
    assert not failed, f"{pkg}: {failed}\n{r.tail()}"
    assert sorted(got) == sorted(areas_run), r.tail()
    done(r)


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_bounded_buffer(boot, pkg, smp):
    """progs/ported/bbuf: a bounded buffer written the way Linux pthread
    code is (static initializers, a barrier, an rwlock, __thread, getopt
    with dash options, a CLOCK_REALTIME timed wait that must time out),
    built unchanged. Every item produced is consumed exactly once."""
    r = boot(f"run=bbuf,pkg={pkg},vps=2,-p,3,-c,2,-n,2000", smp=smp, timeout=120)
    res = [e for e in r.events("result") if e.get("name") == "bbuf"]
    assert len(res) == 1, r.tail()
    b = res[0]
    assert b["ok"] and b["produced"] == b["consumed"] == 6000 and b["sum"] == b["want"], b
    assert b["timedwait"] == "Connection timed out", b     # strerror(ETIMEDOUT)
    done(r, 0)


@pytest.mark.parametrize("pkg", ["fifo", "prio", "kthread"])
@pytest.mark.parametrize("smp", [1, 2])
def test_join_or_detach_of_a_reaped_thread_is_esrch(boot, pkg, smp):
    """progs/posix/reaped.c: pthread_join, pthread_detach, tryjoin and
    timedjoin of a thread already joined, or detached and reaped, give
    ESRCH; 200 rounds of a double join never free a thread twice (two
    threads alive at once are always different). Before, the second join
    returned 0 and freed the descriptor again."""
    self_test(boot, "reaped", pkg, smp, 11)


@pytest.mark.parametrize("pkg", ["fifo", "prio", "kthread"])
@pytest.mark.parametrize("smp", [1, 2])
def test_rwlock_timed_wait_with_a_handler(boot, pkg, smp):
    """progs/posix/rwhandler.c: LTP's timed*lock 6-1 and 6-2 sequences on
    both waits. A handler (every signal blocked in it) runs in a thread
    blocked in timedrdlock/timedwrlock: with main keeping the lock the
    wait goes on to ETIMEDOUT (no sooner than its timeout), holding
    nothing; with main unlocking while the handler sleeps twice the
    timeout, the wait ends with the lock; the thread's unlock, or its exit
    holding it, leave the lock as they should, and destroy is 0."""
    self_test(boot, "rwhandler", pkg, smp, 80)
