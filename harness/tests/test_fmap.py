"""mmap of files (kernel/fmap.c, ulib/libc/fmap.c): private and shared
maps read and written, shared pages written back by msync and munmap,
bad calls refused; the image stays clean for e2fsck -fn and debugfs
brings back what the guest wrote; a touch that needs the disk is a
page-fault BLOCKED upcall (BLK_FPAGE), so threads on one fifo or prio VP
keep many requests in flight, where naive's VP blocks on each."""
import shutil
import subprocess

import pytest

from harness import qemu
from helpers import done, result, DEBUGFS, MKE2FS, needs_e2fsprogs

EBADF, EACCES, EINVAL, ENODEV = 9, 13, 22, 19
E2FSCK = shutil.which("e2fsck") or "/usr/sbin/e2fsck"
GOLD = 0x9e3779b97f4a7c15
PG = 4096
RWSIZE = 3 * PG + 100

pytestmark = needs_e2fsprogs


def wbytes(seed, n):
    return bytes(((i * 7 + seed * 31 + (i >> 9)) & 0xff) for i in range(n))


def golden(n):
    return b"".join(((k * GOLD) & (2**64 - 1)).to_bytes(8, "little") for k in range(n // 8))


@pytest.fixture
def image(tmp_path):
    """/big (16 MiB of the golden words: eight times the block cache the
    tests that need eviction fix with bcache=512),
    /rw1, /rw2 and /rw3 (RWSIZE bytes of 0xee), 4 KiB blocks."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "big").write_bytes(golden(16 << 20))
    for f in ("rw1", "rw2", "rw3"):
        (tree / f).write_bytes(b"\xee" * RWSIZE)
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "4096", "-d", str(tree), str(img), "64M"],
                   check=True, capture_output=True)
    return img


def fsck_clean(img):
    p = subprocess.run([E2FSCK, "-fn", str(img)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def dump(img, path, tmp_path):
    out = tmp_path / path.strip("/")
    subprocess.run([DEBUGFS, "-R", f"dump {path} {out}", str(img)], check=True, capture_output=True)
    return out.read_bytes()


@pytest.mark.parametrize("smp", [1, 2])
def test_file_maps_read_write_and_come_back(boot, image, tmp_path, smp):
    r = boot("memcheck bcache=512 run=fmaptest,child", smp=smp, timeout=180, disk=image)
    done(r, 0)
    mine = {x.get("mode"): x for x in r.results if x.get("name") == "fmaptest"}
    assert sorted(mine) == ["basic", "child"], r.results
    res, parent = mine["basic"], mine["child"]
    assert res["failures"] == 0, res
    assert res["private_read"] == res["offset_read"] == res["private_write_stays"] == 1, res
    assert res["shared_msync"] == res["shared_munmap"] == 1, res
    assert res["shared_at_exit"] == 1, res                 # ulib's exit() wrote it back
    assert res["dontneed"] == 1 and res["forked"] == 1, res   # a fork's child inherits the map    # MADV_DONTNEED: private from the file, shared kept
    assert res["new_file"] == 1, res                       # read as zeros, then written
    # a write(2) from and a read(2) into untouched mapped pages whose blocks
    # are not cached: the call waits for them (before: EFAULT)
    assert res["write_from_map"] == res["read_into_map"] == 64 * 1024, res
    assert res["copies_ok"] == 1, res
    assert res["e_bad_fd"] == res["e_neg_fd"] == res["e_closed_fd"] == -EBADF, res
    assert res["e_shared_write_rdonly"] == res["e_wronly"] == -EACCES, res
    assert res["e_odd_offset"] == res["e_neg_offset"] == res["e_zero_len"] == -EINVAL, res
    assert res["e_raw_flags"] == res["e_raw_prot"] == res["e_raw_wrap"] == -EINVAL, res
    assert res["e_raw_kernel_addr"] == -EINVAL, res
    assert res["e_dir"] == res["e_console"] == -ENODEV, res
    assert res["private_write_rdonly"] == 1 and res["msync_private"] == 0, res
    assert res["shared_rdonly_stays"] == 1 and res["huge_map"] == 1, res
    assert res["e_msync_odd"] == res["e_msync_flags"] == res["e_msync_raw_flags"] == -EINVAL, res
    assert parent["child"] == 0, parent
    assert parent["avail_lost"] == 0, parent               # every page and table came back
    fsck_clean(image)
    assert dump(image, "/rw1", tmp_path) == wbytes(1, RWSIZE)
    assert dump(image, "/rw2", tmp_path) == wbytes(2, RWSIZE)
    assert dump(image, "/rw3", tmp_path) == wbytes(4, RWSIZE)
    assert dump(image, "/new", tmp_path) == wbytes(3, 5 * PG + 17)
    assert dump(image, "/big", tmp_path) == golden(16 << 20)   # the private write stayed
    assert dump(image, "/copy", tmp_path) == golden(16 << 20)[32 * PG:32 * PG + 64 * 1024]


@pytest.mark.parametrize("pkg", ["fifo", "prio", "naive"])
def test_page_faults_from_threads_on_one_vp(boot, image, pkg):
    """64 threads on one VP touch random pages of /big mapped: with
    upcalls a touch that misses the cache blocks only its thread
    (BLK_FPAGE, EV_UNBLOCKED counted), so many requests are out at once;
    naive's VP blocks on each, one request at a time. The device is held
    to 400 requests a second (QEMU's throttling): unthrottled, how many
    are out at once was how fast the host's I/O thread ran beside the
    guest's vCPU, and a loaded host once saw fifo at 7."""
    r = boot("run=fmaptest,random,%s,64,20,/big" % pkg, timeout=180,
             extra=qemu.disk_args(image, "throttling.iops-total=400"))
    done(r, 0)
    res = result(r, "fmaptest")
    assert res["bad"] == 0 and res["touches"] == 64 * 20 and res["failures"] == 0, res
    assert res["max_in_flight"] <= 64, res      # a touch is one block (4 KiB blocks)
    if pkg == "naive":
        assert res["max_in_flight"] <= 2, res
        assert res["vp_blocks"] > 0 and res["vp_unblocks"] == 0, res
    else:
        assert res["max_in_flight"] >= 16, res
        assert res["vp_unblocks"] >= 16, res


@pytest.mark.parametrize("smp", [1, 2])
def test_one_space_file_calls_see_its_shared_map(boot, image, tmp_path, smp):
    """Within one space, without msync (kernel/fmapcoh.c): read/pread see
    a store to a MAP_SHARED page; a pwrite shows through the map; after
    ftruncate smaller then larger, read and the map give zeros past the
    cut and the store there is gone; a store after it reaches the file by
    munmap. The read comes after 16 MiB of /big, so its write-back waits
    for the disk and the call runs again. In a child on
    a fifo thread, under memcheck: every page and
    table comes back."""
    r = boot("memcheck bcache=512 run=fmaptest,child,coherent,fifo", smp=smp, timeout=180, disk=image)
    done(r, 0)
    mine = {x.get("mode"): x for x in r.results if x.get("name") == "fmaptest"}
    assert sorted(mine) == ["child", "coherent"], r.results
    res, parent = mine["coherent"], mine["child"]
    assert res["failures"] == 0, res
    assert res["read_sees_store"] == 1, res
    assert res["read_waits"] >= 1, res        # the write-back waited for the disk, the call ran again
    assert res["map_sees_pwrite"] == 1, res
    assert res["truncate_zeros"] == 1, res
    assert res["after_unmap"] == 1, res
    assert parent["child"] == 0 and parent["avail_lost"] == 0, parent
    fsck_clean(image)
    want = bytearray(wbytes(5, PG + 50)) + bytearray(3 * PG + 100 - (PG + 50))
    want[10], want[PG + 5], want[3 * PG + 1] = ord("A"), ord("B"), ord("D")
    assert dump(image, "/coh", tmp_path) == bytes(want)
