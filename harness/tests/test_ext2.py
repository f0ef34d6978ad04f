"""ext2 on the disk, read side (kernel/ext2.c, sysfile.c; ulib's open,
read, pread, lseek, fstat, stat): images made here from a host folder
with e2fsprogs' `mke2fs -d`, read in the guest by progs/tests/filetest.c
and compared with the host's bytes; every error a bad path, descriptor,
pointer or offset gives; random reads from threads on one VP; and damaged
images, which must give errors, never a panic or a hang, with memory back
exactly."""
import random
import re
import struct
import subprocess

import pytest
from helpers import done, result, DEBUGFS, MKE2FS, fnv, needs_e2fsprogs

ENOENT, EBADF, EFAULT, EISDIR, ENOTDIR, EINVAL = 2, 9, 14, 21, 20, 22
EMFILE, EROFS, ENAMETOOLONG, EEXIST = 24, 30, 36, 17
MAXFILE = 1024      # <anima/file.h> MAXFILE_SPACE: Linux's default RLIMIT_NOFILE

pytestmark = needs_e2fsprogs


def make_tree(root):
    """The host folder: small and odd-sized files, a file through double
    indirect blocks whose words the guest can check, a nested directory,
    and a sparse file whose tail needs triple indirect blocks (1 KiB)."""
    rng = random.Random(31)
    (root / "dir" / "sub").mkdir(parents=True)
    (root / "hello.txt").write_bytes(b"hello, disk\n")
    (root / "empty").write_bytes(b"")
    (root / "dir" / "sub" / "rand.bin").write_bytes(bytes(rng.randrange(256) for _ in range(300001)))
    words = (struct.pack("<Q", (k * 0x9e3779b97f4a7c15) & (2**64 - 1)) for k in range((4 << 20) // 8))
    (root / "big").write_bytes(b"".join(words))
    with open(root / "sparse", "wb") as f:
        f.seek(67 << 20)
        f.write(b"tail" * 1024)
    (root / "many").mkdir()          # a directory of several blocks
    for i in range(150):
        (root / "many" / f"entry-with-a-longish-name-{i:04d}").write_bytes(b"%d\n" % i)
    return ["/hello.txt", "/empty", "/dir/sub/rand.bin", "/big", "/sparse"]


def mkfs(tree, image, bs, size="24M"):
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", str(bs), "-d", str(tree),
                    str(image), size], check=True, capture_output=True)


@pytest.fixture(scope="module")
def fs(tmp_path_factory):
    """{block size: image} and the host tree's files."""
    d = tmp_path_factory.mktemp("ext2")
    tree = d / "tree"
    tree.mkdir()
    paths = make_tree(tree)
    images = {}
    for bs in (1024, 2048, 4096):
        images[bs] = d / f"fs{bs}.img"
        mkfs(tree, images[bs], bs)
    return images, tree, paths


@pytest.mark.parametrize("bs", [1024, 2048, 4096])
@pytest.mark.parametrize("chunk", [1000, 1 << 20])
def test_files_read_as_on_the_host(boot, fs, bs, chunk):
    images, tree, paths = fs
    r = boot(f"memcheck run=filetest,cat,{chunk}," + ",".join(paths), timeout=120,
             disk=images[bs])
    done(r, 0)
    got = {e["path"]: e for e in r.results if e.get("mode") == "cat"}
    for p in paths:
        data = (tree / p[1:]).read_bytes()
        e = got[p]
        assert e["open"] == 0 and e["last_read"] == 0, e
        assert e["size"] == e["st_size"] == len(data), e
        assert e["hash"] == fnv(data), (p, e)
        assert e["mode_bits"] & 0o170000 == 0o100000, e


@pytest.mark.parametrize("bs", [1024, 4096])
def test_directory_listing_matches_the_host(boot, fs, bs):
    """opendir/readdir over the whole tree (filetest walk): every name and
    type the host has, nothing more (but lost+found), each file readable."""
    images, tree, _ = fs
    r = boot("memcheck run=filetest,walk", timeout=120, disk=images[bs])
    done(r, 0)
    got = [l.split()[2:] for l in r.lines if l.startswith("filetest entry ")]
    errors = [l for l in r.lines if l.startswith("filetest entry-error")]
    assert not errors, errors
    want = {"/" + str(p.relative_to(tree)): "4" if p.is_dir() else "8" for p in tree.rglob("*")}
    want["/lost+found"] = "4"
    assert len(got) == len(want), (len(got), len(want))
    assert dict(got) == want


def test_bad_paths_pointers_and_descriptors(boot, fs):
    images, _, _ = fs
    r = boot("run=filetest,errors,/dir,/hello.txt", timeout=60, disk=images[1024])
    done(r, 0)
    res = result(r, "filetest")
    assert res["missing"] == res["stat_missing"] == res["empty_path"] == -ENOENT, res
    assert res["through_file"] == res["not_dir"] == -ENOTDIR, res
    assert res["write_existing"] == -EEXIST and res["create"] == -ENOENT, res   # (O_EXCL, no dir)
    assert res["long_name"] == res["long_path"] == -ENAMETOOLONG, res
    assert res["bad_path_ptr"] == res["kernel_path_ptr"] == -EFAULT, res
    assert res["dir_open"] == 0 and res["dir_read"] == -EISDIR and res["dir_is_dir"] == 1, res
    assert res["bad_buf"] == res["kernel_buf"] == -EFAULT, res
    assert res["bad_stat_ptr"] == res["stat_bad_ptr"] == -EFAULT, res
    assert res["neg_seek"] == res["bad_whence"] == res["neg_pread"] == -EINVAL, res
    assert res["pread_past_end"] == 0, res
    assert res["closed_read"] == res["raw_bad_fd"] == res["raw_neg_fd"] == -EBADF, res
    assert res["raw_close_twice"] == -EBADF, res
    assert res["opened"] == MAXFILE and res["past_table"] == -EMFILE, res
    assert res["stat_file"] == len(b"hello, disk\n"), res


def test_no_disk_is_an_empty_read_only_file_system(boot):
    r = boot("noramdisk run=filetest,errors,/dir,/hello.txt", timeout=60)
    done(r, 0)
    res = result(r, "filetest")
    assert res["missing"] == res["stat_missing"] == res["dir_open"] == -ENOENT, res
    assert res["create"] == -EROFS, res


@pytest.mark.parametrize("pkg", ["fifo", "prio", "naive"])
def test_random_reads_from_threads_on_one_vp(boot, fs, pkg):
    """64 threads on one VP pread random 4 KiB pieces of /big (4 MiB, 1 KiB
    blocks: twice the cache). With upcalls, misses block only their
    threads (the VP's EV_UNBLOCKED count), so many requests are out at
    once; naive blocks its VP on each (blocks, no EV_UNBLOCKED), so a
    read has at most the two cache blocks it spans out. The cache is held
    to its floor (bcache=512): grown to memory it holds all of /big, and
    the reads after the first hits need no request. The device is held
    to 400 requests a second, as test_fmap's fault test is: unthrottled,
    how many are out at once was how fast the host's I/O thread ran
    beside the vCPU (a loaded host saw fifo at 8, 10 and 12). 8 reads a
    thread: the most out at once is the first wave's, when all 64 threads
    miss together; at 400 requests a second the 20 of before made the boot
    3 s of waiting for the throttle (8: about 1.3 s)."""
    from harness import qemu
    images, _, _ = fs
    r = boot(f"rawdisk bcache=512 run=filetest,random,{pkg},64,8,/big", timeout=180,
             extra=qemu.disk_args(images[1024], "throttling.iops-total=400"))
    done(r, 0)
    res = result(r, "filetest")
    assert res["errors"] == 0 and res["bad"] == 0 and res["reads"] == 64 * 8, res
    if pkg == "naive":
        assert res["max_in_flight"] <= 2, res
        assert res["vp_blocks"] > 0 and res["vp_unblocks"] == 0, res   # the VP blocked
    else:
        assert res["max_in_flight"] >= 16, res
        assert res["vp_unblocks"] >= 16, res     # threads blocked: EV_BLOCKED/EV_UNBLOCKED


# --- damaged images ----------------------------------------------------------

def metadata_blocks(image):
    """The blocks of the directories and the indirect blocks of the large
    files (1 KiB blocks), as debugfs lists them."""
    blocks = []
    for d in ("/", "/dir", "/dir/sub"):
        out = subprocess.run([DEBUGFS, "-R", f"blocks {d}", str(image)], capture_output=True,
                             text=True, check=True).stdout
        blocks += [int(b) for b in out.split()]
    for f in ("/big", "/sparse"):
        out = subprocess.run([DEBUGFS, "-R", f"stat {f}", str(image)], capture_output=True,
                             text=True, check=True).stdout
        blocks += [int(b) for b in re.findall(r"\((?:IND|DIND|TIND)\):(\d+)", out)]
    assert len(blocks) >= 5, blocks
    return blocks


def corrupt(src, dst, rng, meta):
    """A copy of src with 1-8 bytes changed: in the superblock, the group
    descriptors, the first inodes (the root and the test's files), the
    start of a directory block (where its entries are) or of an indirect
    block, or anywhere in the first 160 KiB
    (bitmaps, small files), 1 KiB blocks."""
    data = bytearray(src.read_bytes())
    itable = struct.unpack_from("<I", data, 2048 + 8)[0]
    regions = [(1024, 1024 + 120), (2048, 2048 + 32), (itable * 1024, itable * 1024 + 16 * 128),
               (0, 160 << 10)] + [(b * 1024, b * 1024 + 128) for b in meta] * 2
    for _ in range(rng.randint(1, 8)):
        lo, hi = rng.choice(regions)
        at = rng.randrange(lo, hi)
        data[at] = rng.choice([0, 0xff, data[at] ^ (1 << rng.randrange(8)), rng.randrange(256)])
    dst.write_bytes(bytes(data))


def test_damaged_images_give_errors_not_panics(boot, fs, tmp_path):
    """50 images with flipped bytes: every run ends normally (no panic, no
    hang), the walker is never killed, memory comes back exactly
    (memcheck), and the damage is seen as errors by some of them."""
    images, _, paths = fs
    rng = random.Random(3131)
    meta = metadata_blocks(images[1024])
    walk = ",".join(["/", "/dir", "/dir/sub"] + paths)
    errs = 0
    for i in range(50):
        img = tmp_path / "bad.img"
        corrupt(images[1024], img, rng, meta)
        r = boot(f"memcheck run=filetest,memwalk,{walk}", timeout=60, disk=img)
        done(r, 0)
        res = result(r, "filetest")
        assert res["child"] == 0 and res["avail_lost"] == 0, (i, res)
        errs += any(" -117" in l or " -5" in l for l in r.lines if l.startswith("filetest walk"))
    assert errs > 0, "no damaged image gave EUCLEAN or EIO: the fuzz reached nothing"
    print(f"{errs} of 50 damaged images gave EUCLEAN/EIO somewhere")


def test_cli_disk_from_a_folder_and_back(built, tmp_path):
    """`python3 -m harness run PROG --disk DIR --out OUT`: the image is made
    from DIR (the host's DIR/x/y is the guest's /x/y) and its whole tree
    comes back to OUT."""
    import sys
    from harness import ROOT
    src = tmp_path / "src"
    (src / "a" / "b").mkdir(parents=True)
    (src / "a" / "b" / "note.txt").write_bytes(b"from the host\n" * 100)
    (src / "top").write_bytes(bytes(range(256)) * 50)
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "harness", "run", "filetest", "cat", "777",
                        "/a/b/note.txt", "/top", "--disk", str(src), "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert fnv(b"from the host\n" * 100) in p.stdout and fnv(bytes(range(256)) * 50) in p.stdout
    for f in ("a/b/note.txt", "top"):
        assert (out / f).read_bytes() == (src / f).read_bytes()
