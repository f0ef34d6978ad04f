"""progs/posix/sigchldign.c: SIGCHLD set to SIG_IGN (signal or sigaction),
blocked or not, has its children collected at their end as on Linux: a
later wait blocks until they have all ended, then fails with ECHILD;
SA_NOCLDWAIT the same; an exec keeps SIG_IGN for SIGCHLD and its
collecting (exec). Before (ulib/libc/signal.c), a blocked SIG_IGN SIGCHLD
was held by the kernel as caught, and its children stayed zombies.
flags: sigaction(sig, 0, &old) gives back the flags and mask that were
set, and SIG_DFL once an SA_RESETHAND handler has run, with its flags and
mask kept as Linux keeps them (before: flags and mask read back as 0:
3 failures of 46)."""
import pytest
from helpers import needs_e2fsprogs, passed, program_image, PKGS_DET, pkg_cases


@pytest.mark.parametrize("area,n", [("ign", 14), ("flags", 46)], ids=["ign", "flags"])
@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_sigchld_ignored_collects_children_and_flags_read_back(boot, pkg, smp, area, n):
    r = boot(f"run=sigchldign,pkg={pkg},{area},{pkg}", smp=smp, timeout=90)
    passed(r, "sigchldign", n, area=area)


@needs_e2fsprogs
@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_sigchld_ignored_kept_across_exec(boot, tmp_path, pkg, smp):
    r = boot(f"run=sigchldign,pkg={pkg},exec,{pkg}", smp=smp, timeout=90,
             disk=program_image(tmp_path, "sigchldign"))
    passed(r, "sigchldign", 3, area="exec")
