"""Process credentials (kernel/cred.c, kernel/perm.c; ulib/libc/ids.c):
progs/posix/creds.c, booted as root on every package at -smp 1 and 2,
with its own file on the disk as /bin/creds, /bin/suid (set-user-ID,
owner 1234) and /bin/sgid (set-group-ID, group 4321). It checks the
ids of a boot program (root, no groups), setgroups/getgroups and their
errors, ids and groups kept by fork, exec and posix_spawn and a set-ID
file's owner or group taken at exec, root dropping privilege and then
EPERM, switching among real and saved ids, setuid in a thread changing
the process, file permission checks (EACCES for read, write, exec,
search, create, unlink; owner, group, supplementary group and other
classes; root passing; access() on the real ids), chmod/chown/utimes
only by the owner or root and a sticky directory's entries (EPERM), new
files owned by the creator's effective ids, and kill EPERM across users.
Before: setuid and its family did not exist (the program did not link),
getuid was always 0 and every process could do everything."""
import subprocess

import pytest
from harness import BUILD
from helpers import DEBUGFS, MKE2FS, needs_e2fsprogs, passed, PKGS_DET, pkg_cases
from test_ext2write import fsck_clean

pytestmark = needs_e2fsprogs


def image(tmp_path):
    tree = tmp_path / "tree"
    (tree / "bin").mkdir(parents=True)
    prog = (BUILD / "progs" / "creds").read_bytes()
    for name in ("creds", "suid", "sgid"):
        (tree / "bin" / name).write_bytes(prog)
        (tree / "bin" / name).chmod(0o755)
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-d", str(tree), str(img), "8M"],
                   check=True, capture_output=True)
    cmds = ("sif /bin/suid uid 1234\nsif /bin/suid mode 0104755\n"
            "sif /bin/sgid gid 4321\nsif /bin/sgid mode 0102755\n")
    subprocess.run([DEBUGFS, "-w", "-f", "-", str(img)], input=cmds, text=True, check=True,
                   capture_output=True)
    return img


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_credentials_and_permission_checks(boot, tmp_path, pkg, smp):
    img = image(tmp_path)
    r = boot(f"run=creds,pkg={pkg}", smp=smp, timeout=180, disk=img)
    passed(r, "creds", at_least=50)   # (the parent's; its children's failures count too)
    fsck_clean(img)
