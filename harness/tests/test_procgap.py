"""Process corners as Linux has them (progs/posix/procgap.c), on every
package at -smp 1 and 2: an orphan, running or already ended, is adopted
by space 1, the boot's first program (kernel/space.c's adopter), whose
wait and waitpid(-1) collect it (before: ECHILD, and the zombie stayed
until the halt); an orphan of another boot program comes to space 1 too,
which may not signal it; waitid with WSTOPPED or WCONTINUED and no
WEXITED never reports a child's end (before: it did), and bad flag sets
are EINVAL."""
import pytest
from helpers import PACKAGES, done, only, program_image, needs_e2fsprogs, shared_boot, PKGS_DET, PKGS_PAR, pkg_cases


def modes(pkg):
    """The modes one boot of procgap runs in turn on pkg, for the tests
    marked shares_boot: adopt first (it is about space 1 with no child
    yet), then those each test's packages have."""
    return ((["adopt", "waitid"] if pkg in PACKAGES else []) +
            (["getres"] if pkg in PACKAGES + ["det"] else []) + ["wcancel"])


def shared_run(request, boot, pkg, smp, mode):
    """The shared boot of pkg's modes at -smp smp, and mode's @result.
    It ended with status 0 if every mode passed (else 1: the failing
    mode's own test names it)."""
    r = shared_boot(request, boot, f"run=procgap,pkg={pkg},{','.join(modes(pkg))}",
                    smp=smp, timeout=180)
    res = only(r, "result", name="procgap", mode=mode)
    bad = any(e["failures"] for e in r.events("result") if e.get("name") == "procgap")
    done(r, int(bad))
    return r, res


@pytest.mark.shares_boot
@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_space_1_adopts_orphans_and_zombies(boot, request, pkg, smp):
    r, res = shared_run(request, boot, pkg, smp, "adopt")
    assert res["failures"] == 0 and res["checks"] >= 6, r.tail()


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_another_boot_programs_orphan_comes_to_space_1(boot, pkg, smp):
    r = boot(f"run=procgap,pkg={pkg},init run=procgap,pkg={pkg},orphan", smp=smp, timeout=120)
    for mode in ("init", "orphan"):
        res = only(r, "result", name="procgap", mode=mode)
        assert res["failures"] == 0 and res["checks"] >= 2, r.tail()
    done(r)


@pytest.mark.shares_boot
@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_waitid_without_wexited_reports_no_end(boot, request, pkg, smp):
    r, res = shared_run(request, boot, pkg, smp, "waitid")
    assert res["failures"] == 0 and res["checks"] >= 12, r.tail()



def disk_run(request, boot, tmp_path, pkg, smp, mode):
    """procgap's auxv and itexec modes in turn, in one boot per package
    and -smp shared by their tests (shares_boot), with its own copy on a
    disk as /bin/procgap: the run and MODE's @result. The run ended with
    status 0 if both passed (else 1: the failing mode's test names it)."""
    r = shared_boot(request, boot, f"memcheck run=procgap,pkg={pkg},auxv,itexec", smp=smp,
                    timeout=180, disk=lambda: program_image(tmp_path, "procgap"))
    res = only(r, "result", name="procgap", mode=mode)
    bad = any(e["failures"] for e in r.events("result") if e.get("name") == "procgap")
    done(r, int(bad))
    return r, res


@needs_e2fsprogs
@pytest.mark.shares_boot
@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_auxiliary_vector_on_spawn_and_exec(boot, request, tmp_path, pkg, smp):
    """AT_PHDR/PHENT/PHNUM find our program headers, AT_ENTRY is _start,
    AT_PAGESZ and AT_CLKTCK agree with sysconf, AT_HWCAP is cpuid's edx,
    AT_PLATFORM "x86_64", AT_EXECFN our path, 16 AT_RANDOM bytes that
    differ from the parent's; ENOENT for a type not there. As a boot
    program, and in /bin/procgap by posix_spawn and by fork and execv,
    whose checks are its exit status (before: only AT_NULL, no
    getauxval)."""
    r, res = disk_run(request, boot, tmp_path, pkg, smp, "auxv")
    assert res["failures"] == 0 and res["checks"] >= 16, r.tail()


@needs_e2fsprogs
@pytest.mark.shares_boot
@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_cpu_itimers_survive_exec(boot, request, tmp_path, pkg, smp):
    """ITIMER_VIRTUAL (0.2 s, period 3 s) and ITIMER_PROF (20 s) set
    before an execv are armed in the new image with at most that time
    left and their periods, and VIRTUAL's SIGVTALRM (blocked across the
    exec) comes pending once the new image has computed that long, a
    count of processor time, not of the host's (before: both dropped);
    a fork's child still has none."""
    r, res = disk_run(request, boot, tmp_path, pkg, smp, "itexec")
    assert res["failures"] == 0 and res["checks"] >= 3, r.tail()


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_realtime_abstime_timer_keeps_its_periods_on_that_clock(boot, pkg, smp):
    """A TIMER_ABSTIME timer on CLOCK_REALTIME with a 100 ms period, after
    its first expiry: CLOCK_REALTIME set 1 s ahead gives at least 4
    overruns at the next expiry, set 10 s back no expiry in the next
    two periods of boot time and more than 5 s left (before: its periods were
    counted on the boot clock, overrun 0 and an expiry within 100 ms).
    100 ms periods, the first one period after arming (were 200 ms and
    1 s, and a second of boot time: 2 s of every boot's 2.3)."""
    r = boot(f"run=procgap,pkg={pkg},rtperiod", smp=smp, timeout=120)
    res = only(r, "result", name="procgap", mode="rtperiod")
    assert res["failures"] == 0 and res["checks"] >= 7, r.tail()
    done(r)


@pytest.mark.shares_boot
@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_wait_calls_are_cancellation_points(boot, request, pkg, smp):
    """A thread blocked in waitpid, wait, waitid or wait4 (its child
    alive), cancelled (deferred), runs its cleanup handler and ends
    PTHREAD_CANCELED, and the child is still there to reap (POSIX's
    cancellation points; before: the wait went on polling until the
    child ended, and the thread was never cancelled). On det the poll
    between asks is det's timed wait (before: SYS_sleep held the token,
    the cancelling thread never ran, and the boot timed out)."""
    r, res = shared_run(request, boot, pkg, smp, "wcancel")
    assert res["failures"] == 0 and res["checks"] >= 28, r.tail()


@pytest.mark.shares_boot
@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_getresuid_bad_pointer_is_efault(boot, request, pkg, smp):
    """getresuid/getresgid with an unmapped, kernel-half or read-only
    pointer return -1 EFAULT, as on Linux where the kernel stores them
    (before: ulib stored through the pointer and the program died)."""
    r, res = shared_run(request, boot, pkg, smp, "getres")
    assert res["failures"] == 0 and res["checks"] >= 10, r.tail()


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_getids_kernel_pointer_and_munmap_race(boot, pkg, smp):
    """SYS_getids, both forms, given kernel addresses (the kernel half,
    its text and data, a store wrapping to 0) or a store across the top
    of user space (the page below mapped) in any slot: EFAULT and nothing
    stored; getresuid racing a thread that unmaps and maps its page (at
    -smp 2, on two VPs): each call 0 or EFAULT, the kernel unharmed.
    (Hostile coverage: the kernel was right before this test.)"""
    r = boot(f"run=procgap,pkg={pkg},getresk", smp=smp, timeout=180)
    res = only(r, "result", name="procgap", mode="getresk")
    assert res["failures"] == 0 and res["checks"] >= 2000, r.tail()
    assert res["race_ok"] + res["race_efault"] > 0, r.tail()
    done(r)
