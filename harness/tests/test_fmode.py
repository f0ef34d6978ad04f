"""File modes, times and hard links on the disk (kernel/sysmode.c,
kernel/ext2w.c: ext2_setattr, ext2_link; ulib/libc/fmode.c), and the
umask an exec keeps (SYS_umaskexec, INFO_UMASKEXEC; ulib/libc/nofile.c).
progs/posix/fmode.c: chmod/fchmod/fchmodat change the permission bits
(setuid, setgid, sticky too; never the type) and ctime, with Linux's
errors; as root, reads and writes ignore the mode, access(X_OK) and exec
want an x bit; link/linkat make hard links (st_nlink, EEXIST, EPERM for
a directory, ENOENT, ENOTDIR; a link to a symbolic link or, with
AT_SYMLINK_FOLLOW, to its file), unlink takes one link and the file goes
with its last link and last holder, rename over a link of the same file
does nothing; utimensat/futimens/utime/utimes set atime and mtime; the
umask survives an exec and a posix_spawn. After each run the image is
e2fsck -fn clean and the host's debugfs sees what the guest made: a hard
link's count, a mode, the times. EMLINK at ext2's 32,000 links (and
for mkdir and a directory's rename into a directory with as many). A crash
(QEMU killed) after link and fsync leaves a clean image with both links."""
import errno
import re
import subprocess

import pytest
from harness import BUILD
from helpers import DEBUGFS, MKE2FS, done, needs_e2fsprogs, result, pkg_cases, PKGS_DET
from test_ext2write import fsck_clean

pytestmark = needs_e2fsprogs


class Crash(Exception):
    pass


def image(tmp_path):
    """/bin/fmode (0755), /t/old (ctime 1000, mtime 2000, atime 3000 set
    by the host) and the empty directory /t/sub, in a 16 MiB image."""
    tree = tmp_path / "tree"
    (tree / "bin").mkdir(parents=True)
    (tree / "t" / "sub").mkdir(parents=True)
    (tree / "t" / "big").mkdir()
    (tree / "t" / "old").write_bytes(b"old\n")
    (tree / "bin" / "fmode").write_bytes((BUILD / "progs" / "fmode").read_bytes())
    (tree / "bin" / "fmode").chmod(0o755)
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-d", str(tree), str(img), "16M"],
                   check=True, capture_output=True)
    cmds = "sif /t/old ctime 1000\nsif /t/old mtime 2000\nsif /t/old atime 3000\n"
    subprocess.run([DEBUGFS, "-w", "-f", "-", str(img)], input=cmds, text=True, check=True,
                   capture_output=True)
    return img


def inode(img, path):
    """debugfs's view of path's inode: links, mode, atime, mtime, ino."""
    out = subprocess.run([DEBUGFS, "-R", f"stat {path}", str(img)], check=True, capture_output=True,
                         text=True).stdout
    f = lambda rx: int(re.search(rx, out).group(1), 0)
    return {"links": f(r"Links:\s+(\d+)"), "mode": int(re.search(r"Mode:\s+(0\d+)", out).group(1), 8),
            "ino": f(r"Inode:\s+(\d+)"),
            "atime": f(r"atime:\s+(0x[0-9a-f]+)"), "mtime": f(r"mtime:\s+(0x[0-9a-f]+)")}


def dump(img, path, tmp_path):
    out = tmp_path / "dumped"
    subprocess.run([DEBUGFS, "-R", f"dump {path} {out}", str(img)], check=True, capture_output=True)
    return out.read_bytes()


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_modes_links_times_and_the_umask_across_exec(boot, tmp_path, pkg, smp):
    img = image(tmp_path)
    r = boot(f"run=fmode,pkg={pkg},all", smp=smp, timeout=180, disk=img)
    res = result(r, "fmode")
    assert res["failures"] == 0 and res["checks"] >= 75, r.tail()
    assert res["old_ctime"] > 1000000000, res                  # chmod set ctime to now
    E = errno
    assert res["chmod_err"] == {"missing": E.ENOENT, "notdir": E.ENOTDIR, "toolong": E.ENAMETOOLONG,
                                "longname": E.ENAMETOOLONG, "empty": E.ENOENT, "badfd": E.EBADF,
                                "negfd": E.EBADF, "pipe": 0, "atflag": E.EINVAL}, res
    assert res["access"] == {"rw0": 0, "x0": E.EACCES, "x1": 0, "xdir0": 0, "spawn_nox": E.EACCES,
                             "exec_nox": 40, "x_owner": 0}, res
    assert res["link_err"] == {"exists": E.EEXIST, "dir": E.EPERM, "missing": E.ENOENT,
                               "nodir": E.ENOENT, "notdir": E.ENOTDIR, "root": E.EEXIST,
                               "empty": E.ENOENT, "flag": E.EINVAL}, res
    assert res["time_err"] == {"nsec": E.EINVAL, "missing": E.ENOENT, "badfd": E.EBADF}, res
    assert abs(res["now_off"]) <= 2, res
    assert res["h1_nlink"] == 2, res
    kids = [(e["umask"], e["fork_umask"], e["create_ok"]) for e in r.events("result")
            if e.get("name") == "fmode_umask"]
    # the exec's child, then the spawn's; each forks a child of its own first
    assert kids == [(0o027, 0o027, True), (0o077, 0o077, True)], r.tail()
    done(r, 0)
    fsck_clean(img)
    h1, h2 = inode(img, "/t/h1"), inode(img, "/t/h2")
    assert h1["ino"] == h2["ino"] and h1["links"] == 2, (h1, h2)
    assert dump(img, "/t/h2", tmp_path) == b"hard link\n"
    assert inode(img, "/t/suid")["mode"] == 0o4750
    t = inode(img, "/t/times")
    assert (t["atime"], t["mtime"]) == (1000, 2000), t
    assert inode(img, "/t/old")["mode"] == 0o604
    assert inode(img, "/bin/fmode")["mode"] == 0o755


def test_emlink_at_ext2s_link_limit(boot, tmp_path):
    img = image(tmp_path)
    r = boot("run=fmode,pkg=fifo,emlink", smp=2, timeout=300, disk=img)
    res = result(r, "fmode")
    assert res["bad"] == 0 and res["nlink"] == 32000, res
    assert res["next"] == errno.EMLINK and res["after"] == 32000, res
    done(r, 0)
    fsck_clean(img)
    assert inode(img, "/t/many")["links"] == 32000


def test_a_directory_at_the_link_limit_takes_no_subdirectory(boot, tmp_path):
    """The host sets /t/big's count to 32,000 (a directory with that many
    subdirectories would take minutes to make): mkdir in it and rename of
    a directory into it are EMLINK, a file goes in; with the count put
    back the image is clean, so the refusals wrote nothing."""
    img = image(tmp_path)
    sif = lambda n: subprocess.run([DEBUGFS, "-w", "-R", f"sif /t/big links_count {n}", str(img)],
                                   check=True, capture_output=True)
    sif(32000)
    r = boot("run=fmode,pkg=fifo,dirmax", smp=2, timeout=120, disk=img)
    res = result(r, "fmode")
    assert (res["mkdir"], res["rename"], res["file"]) == (errno.EMLINK, errno.EMLINK, 0), res
    assert res["nlink"] == 32000 and res["failures"] == 0, res
    done(r, 0)
    sif(2)
    fsck_clean(img)
    assert inode(img, "/t/sub")["links"] == 2 and inode(img, "/t/big/old")["links"] == 1


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread"]))
def test_links_fsynced_before_a_crash_are_on_the_disk(boot, tmp_path, pkg, smp):
    img = image(tmp_path)
    said = []

    def on_line(line):
        if line.startswith("@result") and '"fmode"' in line:
            said.append(line)
            raise Crash()

    with pytest.raises(Crash):
        boot(f"run=fmode,pkg={pkg},crash", smp=smp, timeout=120, disk=img, on_line=on_line)
    assert '"failures": 0' in said[0] and '"nlink": 3' in said[0], said
    fsck_clean(img)
    old, c1, c2 = (inode(img, p) for p in ("/t/old", "/t/c1", "/t/sub/c2"))
    assert old["ino"] == c1["ino"] == c2["ino"] and old["links"] == 3, (old, c1, c2)
    assert dump(img, "/t/sub/c2", tmp_path) == b"old\n"
