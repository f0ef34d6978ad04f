"""Issue 13, classes 5 (lazy pages in syscalls) and 6 (SMAP): the kernel's
entry and user-copy paths. Every boot has `memcheck`, under which the
kernel panics if it is ever entered with EFLAGS.AC set."""
import pytest
from helpers import done, only, result

EFAULT, ENOENT, ETIMEDOUT = 14, 2, 110


@pytest.mark.parametrize("smp", [1, 2])
def test_ac_flag_cleared_on_entry(boot, smp):
    # User code sets AC and enters the kernel by timer interrupts, a page
    # fault, syscalls and signals from another VP. Without the entry
    # code's clac, the memcheck assertion panics ("entered the kernel
    # with EFLAGS.AC set"); that is how this test failed before the fix.
    r = boot("memcheck run=acflag", smp=smp)
    done(r, 0)
    res = result(r, "acflag")
    assert res["ac_kept"] and res["lazy_touched"] and res["vp"] == 1, res


@pytest.mark.parametrize("smp", [1, 2])
def test_user_rflags_never_reach_the_kernel(boot, smp):
    """progs/tests/flagsattack.c: DF set around syscalls that copy (seg_info,
    cputs), around 64 demand-zero faults and through 30 ms of timer
    interrupts, and NT set through yields, sleeps, the start of new VPs,
    interrupts, a fault and signals. The kernel must run with both clear
    (FMASK on syscall; `cld` at every entry, since gates keep DF; gates
    clear NT) and give the user its flags back. Shown able to fail: with
    alltraps' `cld` taken out, the kernel zeroed new pages downwards and
    the user found 63 of its 64 demand-zero pages wiped (df_bad 63); with NT
    taken out of MSR_FMASK, the iretq that starts a new VP faulted in
    ring 0 and the boot hung. (QEMU's TCG clears DF on `syscall`
    whatever FMASK says: that path is tested on hardware only.)"""
    r = boot("memcheck run=flagsattack", smp=smp)
    done(r, 0)
    res = result(r, "flagsattack")
    assert res["df_bad"] == 0 and res["df_calls"] >= 64, res
    assert res["nt_lost"] == 0 and res["nt_checks"] == 7 and res["vps"] == 4, res


@pytest.mark.parametrize("smp", [1, 2])
def test_syscalls_fill_lazy_pages(boot, smp):
    # Before the fix every one of these returned -EFAULT.
    r = boot("memcheck run=lazysys", smp=smp)
    done(r, 0)
    res = result(r, "lazysys")
    assert res["wait"] == 1 and res["wait_slow"] == 1 and res["status_ok"], res
    assert res["futex"] == -ETIMEDOUT and res["wake"] == 0, res
    assert res["spawn"] == -ENOENT, res
    # A read-only lazy region is still not writable by the kernel.
    assert res["ro_wait"] == -EFAULT and res["ro_zero"], res


@pytest.mark.parametrize("smp", [1, 2])
def test_user_fs_gs_bases(boot, smp):
    # progs/tests/fsgsattack.c: FS and GS at a kernel address, or
    # non-canonical, through syscalls, blocking, timer interrupts and
    # signal IPIs. The kernel must never use a user base (swapgs only
    # from ring 3; GS reloaded from a computed value; FS kept per VP):
    # the attacking spaces die with a clear cause, or go on; the kernel,
    # the parent and a bystander space go on with their own bases.
    r = boot("memcheck run=fsgsattack", smp=smp, timeout=180)
    done(r, 0)
    res = only(r, "result", name="fsgsattack", case="parent")
    assert res["fsgsbase"], res
    assert res["bystander"] == 0 and res["own_fs_kept"] and res["own_gs_kept"], res
    # GS at the kernel: syscalls answer right; GS is reloaded (a switch)
    # or kept, never anything else; the signals' upcalls ran fine.
    assert res["gs"] == 0, r.tail()
    gs = only(r, "result", name="fsgsattack", case="gs")
    assert gs["vp"] == 1 and gs["good"] == 2 * gs["rounds"] and gs["seen_ok"], gs
    # Using a kernel base from user mode: a user page fault there.
    pf = [e for e in r.events("exit") if e.get("killed") == "page fault"]
    assert res["gsuse"] == res["fs"] == -1 and len(pf) == 2, r.tail()
    assert all(e["addr"] == "0xffffffff80000000" for e in pf), pf
    # Non-canonical: #GP in user mode, at the wrfsbase/wrgsbase on hardware,
    # at the first use under TCG (which takes the write).
    assert res["fsnc"] == res["gsnc"] == -1, res
    gp = [e for e in r.events("exit") if e.get("killed") == "general protection"]
    # Kept across a VP switch under TCG: the kernel never loads it back (a
    # #GP in ring 0 on a CPU that checks); it kills the space instead
    # (before, the child went on with it and exited 2).
    nc = [e for e in r.events("exit") if e.get("killed") == "non-canonical FS base"]
    assert res["fsncsw"] == -1, res
    assert len(gp) >= 2 and len(gp) + len(nc) == 3, r.tail()
    assert all(e["addr"] == "0x8000000000000000" for e in nc), nc


@pytest.mark.parametrize("arg", ["syscall", "fault"])
def test_no_compatibility_mode(boot, arg):
    # progs/tests/compatmode.c far-jumps to selector 0x1b. The GDT had a
    # ring-3 32-bit code segment there (for SYSRET's layout only), so
    # user code entered compatibility mode, where `syscall` goes to
    # MSR_CSTAR (AMD, QEMU's TCG), never set: ring 0 at rip 0 on the
    # user's stack, and the whole kernel hung (the run timed out). Now
    # the far jump itself is a user #GP (error code: the selector), and
    # a bystander space finishes.
    r = boot(f"memcheck run=compatmode,{arg} run=hello,0", smp=2, timeout=60)
    done(r, 63)
    ex = only(r, "exit", prog="compatmode")
    assert ex["status"] == -1 and ex["killed"] == "general protection", r.tail()
    assert any("killed: general protection" in l and "error code 0x18" in l for l in r.lines), r.tail()
    assert only(r, "exit", prog="hello")["status"] == 0
    assert not [l for l in r.lines if l.startswith("PANIC")]
