"""ext2 on the disk, write side (kernel/ext2w.c, sysfile.c; ulib's write,
pwrite, O_CREAT/O_EXCL/O_TRUNC/O_APPEND, ftruncate, truncate, fsync,
unlink, mkdir, rmdir, rename): the guest (progs/tests/fwtest.c) writes; then
e2fsck -fn must find the image clean (the independent check) and the
files debugfs brings back must hold, byte for byte, what the guest meant
to write."""
import shutil
import subprocess

import pytest
from helpers import done, only, result, DEBUGFS, MKE2FS, needs_e2fsprogs, pkg_cases

ENOENT, EBADF, EFAULT, EEXIST, ENOTDIR, EISDIR, EINVAL = 2, 9, 14, 17, 20, 21, 22
EFBIG, ENOSPC, ENAMETOOLONG, ENOTEMPTY = 27, 28, 36, 39
E2FSCK = shutil.which("e2fsck") or "/usr/sbin/e2fsck"

pytestmark = needs_e2fsprogs

# (large file, sparse offset): past the double indirect start, and for
# 1 KiB blocks past the triple indirect start (64 MiB + 268 KiB)
SIZES = {1024: (600000, 100_000_000), 4096: (4_800_000, 200_000_000)}


def pat(seed, n):
    s = seed * 40503
    return bytes((((i * 2654435761 + s) & 0xffffffff) >> 13) & 0xff for i in range(n))


def image(tmp_path, bs, size):
    tree = tmp_path / "tree"
    tree.mkdir(exist_ok=True)
    (tree / "x").write_bytes(b"from the host\n")
    img = tmp_path / f"fs{bs}.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", str(bs), "-d", str(tree), str(img), size],
                   check=True, capture_output=True)
    return img


def fsck_clean(img):
    p = subprocess.run([E2FSCK, "-fn", str(img)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def back(img, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    subprocess.run([DEBUGFS, "-R", f"rdump / {out}", str(img)], check=True, capture_output=True)
    return out


def expected(large):
    want = {
        "w/small": pat(1, 12),
        "w/large": pat(2, large),
        "w/log": "".join(f"record {k}\n" for k in range(200)).encode(),
        "w/trunc": pat(3, 5000) + bytes(5000) + b"X",
        "w/trunc2": b"abc",
        "w/trunc3": pat(5, 100) + bytes(2900),
        "w/a/b/c/deep": pat(6, 5000),
        "x": b"from the host\n",
        "w/a/b/r1c": pat(10, 3000),
        "w/r3": pat(11, 5000),
        "w/a/d2/f": pat(13, 100),
    }
    for i in range(0, 200, 2):
        want[f"w/many/file-with-a-longer-name-{i:03d}"] = pat(100 + i, i * 37)
    return want


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("bs", [1024, 4096])
def test_writes_come_back_byte_for_byte(boot, tmp_path, bs, smp):
    large, sparse = SIZES[bs]
    img = image(tmp_path, bs, "24M" if bs == 1024 else "64M")
    # At 2 CPUs the cache is fixed at 512 blocks (bcache=512), less than
    # the large file: dirty blocks are written back to be reused.
    cache = "bcache=512 " if smp == 2 else ""
    r = boot(f"memcheck {cache}run=fwtest,script,{large},{sparse}", smp=smp, timeout=180, disk=img)
    done(r, 0)
    res = result(r, "fwtest")
    steps = ["mkdir_w", "small", "large", "append", "trunc_write", "ftruncate", "trunc2_write",
             "trunc3_write", "truncate_grow", "mkdir_a", "mkdir_b", "mkdir_c", "deep",
             "mkdir_many", "many", "unlink_odd", "gone_write", "gone_unlink", "mkdir_empty",
             "rmdir_empty", "mkdir_e2", "rmdir_slash", "fsync", "r1_write", "rename_same_dir",
             "rename_across", "r2_write", "r3_write", "rename_replace", "mkdir_d1", "d1_file",
             "rename_dir"]
    assert {k: res[k] for k in steps} == dict.fromkeys(steps, 0), res
    assert res["large_readback"] == 1 and res["sparse_read"] == 1, res
    assert res["pwrite_past"] == 1 and res["trunc_size"] == 10001 and res["otrunc_write"] == 3, res
    assert res["sparse"] == 4, res
    assert res["gone_stat"] == res["rmdir_gone"] == res["r2_gone"] == -ENOENT, res
    assert res["e_rename_into_self"] == -EINVAL and res["e_rename_missing"] == -ENOENT, res
    assert res["e_rename_over_dir"] == -EISDIR, res
    # the errors bad calls give
    assert res["e_excl"] == res["e_mkdir_exists"] == res["e_mkdir_dot"] == -EEXIST, res
    assert res["e_unlink_missing"] == res["e_missing_dir"] == -ENOENT, res
    assert res["e_unlink_dir"] == res["e_open_dir_w"] == -EISDIR, res
    assert res["e_rmdir_file"] == res["e_under_file"] == -ENOTDIR, res
    assert res["e_rmdir_notempty"] == -ENOTEMPTY, res
    assert res["e_long_name"] == -ENAMETOOLONG, res
    assert res["e_write_rdonly"] == res["e_raw_bad_fd"] == res["e_bad_fd"] == -EBADF, res
    assert res["e_bad_buf"] == res["e_kernel_buf"] == -EFAULT, res
    assert res["e_pwrite_neg"] == res["e_ftruncate_rdonly"] == res["e_fsync_console"] == -EINVAL, res
    assert res["e_efbig"] == -EFBIG, res
    fsck_clean(img)
    out = back(img, tmp_path)
    want = expected(large)
    got = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*")
           if p.is_file() and p.name != "sparse"}
    assert sorted(got) == sorted(want)
    for k in want:
        assert got[k] == want[k], k
    with open(out / "w" / "sparse", "rb") as f:
        data = f.read()
    assert len(data) == sparse + 4 and data[-4:] == b"tail" and not any(data[:-4])
    dirs = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_dir())
    assert dirs == ["lost+found", "w", "w/a", "w/a/b", "w/a/b/c", "w/a/d2", "w/many"]


def test_a_full_disk_gives_enospc_and_stays_clean(boot, tmp_path):
    """/fill grows until the disk is full (ENOSPC, not a short count that
    lies); after unlinking it, the same bytes fit again (every block came
    back to the bitmaps); e2fsck finds the counts exact."""
    img = image(tmp_path, 1024, "3M")
    r = boot("memcheck run=fwtest,fill,10000", timeout=120, disk=img)
    done(r, 0)
    res = result(r, "fwtest")
    assert res["fill_errno"] == res["refill_errno"] == ENOSPC, res
    assert res["filled"] > 2_000_000 and res["refilled"] == res["filled"], res
    assert res["unlink"] == 0, res
    fsck_clean(img)
    data = (back(img, tmp_path) / "fill").read_bytes()
    assert data == pat(9, res["filled"])


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread"]))
def test_threads_appending_to_their_files_lose_nothing(boot, tmp_path, pkg, smp):
    n, k = 16, 150
    img = image(tmp_path, 1024, "24M")
    r = boot(f"memcheck run=fwtest,append,{pkg},{n},{k}", smp=smp, timeout=180, disk=img)
    done(r, 0)
    assert result(r, "fwtest")["errors"] == 0
    fsck_clean(img)
    out = back(img, tmp_path)
    for i in range(n):
        want = b"".join(f"thread {i} record {j}".ljust(63).encode() + b"\n" for j in range(k))
        assert (out / "t" / str(i)).read_bytes() == want, i


def test_memory_comes_back_after_writing(boot, tmp_path):
    img = image(tmp_path, 4096, "64M")
    r = boot(f"memcheck run=fwtest,mem,script,{SIZES[4096][0]},{SIZES[4096][1]}", timeout=180,
             disk=img)
    done(r, 0)
    res = only(r, "result", name="fwtest", mode="mem")
    assert res["child"] == 0 and res["avail_lost"] == 0, res
    fsck_clean(img)
