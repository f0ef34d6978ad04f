"""Owners and times of files as Linux keeps them on ext2 (kernel/sysown.c,
kernel/ext2time.c, ext2w.c's ext2_setattr; ulib/libc/chown.c, fmode.c),
run by progs/posix/ftimes.c on every package (det too) at -smp 1 and 2.

chown and its forms write the inode's owner and group (the high 16 bits in
osd2), -1 keeps one, and clear set-user-ID (set-group-ID with group-exec)
on all but a directory, as Linux's chown does for root. On 256-byte inodes
(the harness's images: mke2fs -I 256) utimensat keeps nanoseconds and
dates from 1901 to 2446 in the extra fields (epoch bits, nanoseconds),
the kernel's own stamps carry the realtime clock's nanoseconds; on
128-byte inodes times are whole seconds held to 1901..2038, as Linux
does. utimensat(AT_SYMLINK_NOFOLLOW) sets a link's own times,
linkat(AT_EMPTY_PATH) links an open file, fchmod of a pipe keeps its
mode. The host checks the image with its own e2fsprogs: e2fsck -fn clean,
debugfs reads the owners and the raw time fields Anima wrote, decoded
here by the on-disk rules; a second boot reads them back, and reads times
the host set past 2038 with nanoseconds."""
import errno
import re
import subprocess

import pytest
from harness import disk
from helpers import DEBUGFS, MKE2FS, done, needs_e2fsprogs, result, PKGS_DET, pkg_cases
from test_ext2write import fsck_clean

pytestmark = needs_e2fsprogs

MAXX = (1 << 34) - (1 << 31) - 1          # the latest time a large inode keeps (2446)
HOST_MTIME, HOST_MTIME_NS = 4102444800, 123456789   # 2100, set by the host below


def image(tmp_path, isize):
    """/t (empty but for /t/h, whose times the host sets with debugfs) in
    an 8 MiB image with isize-byte inodes."""
    tree = tmp_path / "tree"
    (tree / "t").mkdir(parents=True)
    (tree / "t" / "h").write_bytes(b"host\n")
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-I", str(isize), "-d", str(tree),
                    str(img), "8M"], check=True, capture_output=True)
    if isize > 128:
        cmds = (f"sif /t/h mtime {HOST_MTIME & 0xffffffff:#x}\n"     # epoch 1: 2100
                f"sif /t/h mtime_extra {HOST_MTIME_NS << 2 | 1}\n"
                f"sif /t/h atime {-86400 & 0xffffffff:#x}\nsif /t/h atime_extra {5 << 2}\n")
        subprocess.run([DEBUGFS, "-w", "-f", "-", str(img)], input=cmds, text=True, check=True,
                       capture_output=True)
    return img


def host_view(img, path):
    """debugfs's stat of path: uid, gid, mode, and each time decoded from
    its raw fields as the format says (signed 32-bit seconds, plus the
    extra field's epoch bits as bits 32-33 and its nanoseconds)."""
    out = subprocess.run([DEBUGFS, "-R", f"stat {path}", str(img)], check=True, capture_output=True,
                         text=True).stdout
    v = {"uid": int(re.search(r"User:\s+(\d+)", out).group(1)),
         "gid": int(re.search(r"Group:\s+(\d+)", out).group(1)),
         "mode": int(re.search(r"Mode:\s+(0\d+)", out).group(1), 8)}
    for name, base, extra in re.findall(r"(\w*time):\s+0x([0-9a-f]+)(?::([0-9a-f]+))?", out):
        b = int(base, 16)
        b = b - (1 << 32) if b >= 1 << 31 else b
        e = int(extra, 16) if extra else 0
        v[name] = b + ((e & 3) << 32)
        v[name + "_ns"] = e >> 2
    return v


def times_of(v):
    return (v["atime"], v["atime_ns"], v["mtime"], v["mtime_ns"])


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_owners_and_times_as_linux_keeps_them(boot, tmp_path, pkg, smp):
    img = image(tmp_path, 256)
    r = boot(f"run=ftimes,pkg={pkg},large", smp=smp, timeout=120, disk=img)
    res = result(r, "ftimes")
    assert res["failures"] == 0 and res["checks"] >= 40, r.tail()
    E = errno
    assert (res["suid_after"], res["sgid_nox_after"], res["dir_after"]) == (0o755, 0o2745, 0o6775), res
    assert res["chown_err"] == {"missing": E.ENOENT, "flag": E.EINVAL, "badfd": E.EBADF,
                                "dangling": E.ENOENT}, res
    assert (res["ns_atime"], res["ns_atime_ns"], res["ns_mtime"], res["ns_mtime_ns"]) == \
        (1000, 123456789, 2000, 987654321), res
    assert (res["far_atime"], res["far_mtime"], res["far_mtime_ns"]) == (1 << 33, 4102444800, 500000000), res
    assert (res["past_atime"], res["past_mtime"]) == (-(1 << 31), -86400), res
    assert (res["clamp_atime"], res["clamp_mtime"]) == (-(1 << 31), MAXX), res
    assert res["w_in_window"] == 1, res                        # the realtime clock's ns
    assert (res["link_atime"], res["link_mtime"], res["link_mtime_ns"]) == (3000, 4000, 250000000), res
    assert res["dangling_follow"] == E.ENOENT, res
    assert res["flink_err"] == {"noflag": E.ENOENT, "unlinked": E.ENOENT, "dir": E.EPERM,
                                "exists": E.EEXIST, "badfd": E.EBADF, "pipe": E.EXDEV}, res
    assert (res["pipe_fchmod"], res["pipe_mode"], res["pipe_fchown"]) == (0, 0o10640, 0), res
    done(r, 0)
    # the host's e2fsprogs: clean, and the fields as Linux lays them out
    fsck_clean(img)
    own = host_view(img, "/t/own")
    assert (own["uid"], own["gid"]) == (70000, 80000), own
    assert times_of(host_view(img, "/t/ns")) == (1000, 123456789, 2000, 987654321)
    assert times_of(host_view(img, "/t/far")) == (1 << 33, 0, 4102444800, 500000000)
    assert times_of(host_view(img, "/t/past")) == (-(1 << 31), 0, -86400, 0)
    sl = host_view(img, "/t/sl")
    assert (sl["uid"], sl["gid"], sl["atime"], sl["mtime"], sl["mtime_ns"]) == (9, 8, 3000, 4000, 250000000)
    assert host_view(img, "/t/suid")["mode"] == 0o2745
    w = host_view(img, "/t/w")
    assert (w["mtime"], w["mtime_ns"]) == (res["w_sec"], res["w_ns"]), w
    assert w["crtime"] >= res["t0_sec"], w                      # a creation time too, as ext4's
    # a second boot reads it all back, and the host's own times past 2038
    r = boot(f"run=ftimes,pkg={pkg},reread", smp=smp, timeout=120, disk=img)
    back = result(r, "ftimes")
    assert back["failures"] == 0, r.tail()
    for name in ("own", "ns", "far", "past", "h", "sl"):
        v = host_view(img, "/t/" + name)
        assert (back[name]["uid"], back[name]["gid"]) == (v["uid"], v["gid"]), (name, back, v)
        assert times_of(back[name]) == times_of(v), (name, back, v)
    assert (back["h"]["mtime"], back["h"]["mtime_ns"], back["h"]["atime"], back["h"]["atime_ns"]) == \
        (HOST_MTIME, HOST_MTIME_NS, -86400, 5), back
    done(r, 0)


@pytest.mark.parametrize("smp", [1, 2])
def test_small_inodes_keep_whole_seconds_of_1901_to_2038(boot, tmp_path, smp):
    img = image(tmp_path, 128)
    r = boot("run=ftimes,pkg=fifo,small", smp=smp, timeout=120, disk=img)
    res = result(r, "ftimes")
    assert res["failures"] == 0 and res["checks"] >= 20, r.tail()
    assert (res["ns_atime"], res["ns_atime_ns"], res["ns_mtime"], res["ns_mtime_ns"]) == (1000, 0, 2000, 0), res
    assert (res["far_atime"], res["far_mtime"], res["far_mtime_ns"]) == ((1 << 31) - 1, (1 << 31) - 1, 0), res
    assert (res["past_atime"], res["past_mtime"]) == (-(1 << 31), -86400), res   # as Linux: signed
    assert (res["clamp_atime"], res["clamp_mtime"]) == (-(1 << 31), (1 << 31) - 1), res
    assert res["w_in_window"] == 1 and res["w_ns"] == 0, res
    done(r, 0)
    fsck_clean(img)
    own = host_view(img, "/t/own")
    assert (own["uid"], own["gid"]) == (70000, 80000), own
    assert times_of(host_view(img, "/t/far")) == ((1 << 31) - 1, 0, (1 << 31) - 1, 0)
    assert times_of(host_view(img, "/t/past")) == (-(1 << 31), 0, -86400, 0)


def test_the_harness_images_have_large_inodes(tmp_path):
    """`--disk DIR` images (harness/disk.py) have room for the extra time
    fields whatever the host's mke2fs.conf says."""
    (tmp_path / "d").mkdir()
    img = disk.make_image(tmp_path / "d", tmp_path / "x.img")
    out = subprocess.run([DEBUGFS, "-R", "stats", str(img)], check=True, capture_output=True,
                         text=True).stdout
    assert int(re.search(r"Inode size:\s+(\d+)", out).group(1)) == 256, out
