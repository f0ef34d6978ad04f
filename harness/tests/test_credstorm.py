"""Credentials changing under file calls, exec and kill
(progs/posix/credstorm; kernel/cred.c, perm.c, space_may_signal): a
root process's threads switch real and effective uid between 0 and 1000
and set and clear supplementary groups while its other threads open,
chmod, access and create files, sit blocked in a pipe read, and fork
children that exec a set-user-ID file while a thread of theirs flips its
effective uid (the image must have effective and saved uid 1234); a
process of uid 1000 meanwhile sends it signal 0 and SIGUSR1 (0 or EPERM
as its real uid stands), kill(0, 0) and kill(-1, 0). Every result must
be one the rules allow. Then setgroups from a list running off its
mapping or at a kernel address is EFAULT with the groups unchanged,
getgroups with too short a count EINVAL, into read-only memory or off a
mapping EFAULT. Under memcheck, on the packages that preempt one
thread for another within a process (fifo, prio, tutor, kthread) at
-smp 1 and 2: on naive and det the file thread's loop, which waits for
the ids thread by a count, never lets it run (even without the blocked
read: argv[2] "noblock"), so the run stalls by design at -smp 1 and 2; the
disk is e2fsck clean after."""
import subprocess

import pytest
from harness import BUILD
from helpers import DEBUGFS, MKE2FS, needs_e2fsprogs, passed, pkg_cases
from test_ext2write import fsck_clean

pytestmark = needs_e2fsprogs


def image(tmp_path):
    tree = tmp_path / "tree"
    (tree / "bin").mkdir(parents=True)
    prog = (BUILD / "progs" / "credstorm").read_bytes()
    for name in ("credstorm", "csuid"):
        (tree / "bin" / name).write_bytes(prog)
        (tree / "bin" / name).chmod(0o755)
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-d", str(tree), str(img), "8M"],
                   check=True, capture_output=True)
    cmds = "sif /bin/csuid uid 1234\nsif /bin/csuid mode 0104755\n"
    subprocess.run([DEBUGFS, "-w", "-f", "-", str(img)], input=cmds, text=True, check=True,
                   capture_output=True)
    return img


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "prio", "tutor", "kthread"]))
def test_credentials_racing_files_exec_and_kill(boot, tmp_path, pkg, smp):
    img = image(tmp_path)
    r = boot(f"memcheck run=credstorm,pkg={pkg}", smp=smp, timeout=240, disk=img)
    res = passed(r, "credstorm", at_least=5)
    assert "credstorm: target: 0 bad" in r.log, r.tail()
    assert res["kills_ok"] + res["kills_eperm"] > 0, res
    fsck_clean(img)
