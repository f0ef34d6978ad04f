"""A hostile disk never panics or hangs the kernel (issue 31): ext2 images
damaged on purpose (harness/imgfuzz.py) and a device that fails requests
(QEMU's blkdebug), each booted with progs/tests/imgwalk.c, which uses
every part of the image (lists, stats and reads the whole tree, appends,
truncates, creates, renames, unlinks). Each run must end normally, the
walker must not be killed, memory must come back exactly (memcheck), and
every error must be one a damaged image may give (imgfuzz.ALLOWED).
`make fuzz-images` runs 1,000 images; here a fixed 48 and the damages
that matter most one by one."""
import struct
import subprocess

import pytest
from harness import imgfuzz, qemu
from helpers import done, only, DEBUGFS, needs_e2fsprogs

pytestmark = needs_e2fsprogs
EIO, EUCLEAN = 5, 117
E2FSCK = DEBUGFS.replace("debugfs", "e2fsck")


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    d = tmp_path_factory.mktemp("imgfuzz")
    return {bs: imgfuzz.base_image(d / f"base{bs}.img", bs).read_bytes() for bs in imgfuzz.GEOMETRY}


@pytest.fixture
def base(bases):
    return bases[1024]


def walk(r):
    ok, why, res = imgfuzz.verdict(r)
    assert ok, f"{why}\n{r.tail(30)}"
    return res


def test_clean_image_walks_without_errors_and_stays_clean(boot, base, tmp_path):
    """The undamaged image: every call works (lstat, readlink and stat of
    the symbolic link too: it is followed), and e2fsck finds it clean after
    the walker's writes. Unlinking the fast symbolic link /link gave
    EUCLEAN before: its target text, where a file's block map would be,
    was freed as block numbers (kernel/ext2w.c cut_from)."""
    img = tmp_path / "clean.img"
    img.write_bytes(base)
    res = walk(boot("memcheck run=imgwalk,mem", timeout=60, disk=img))
    errs = {k: v for k, v in res.items() if k.startswith("e") and k[1:].isdigit()}
    assert errs == {}, res
    p = subprocess.run([E2FSCK, "-fn", str(img)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout
    ls = subprocess.run([DEBUGFS, "-R", "ls /", str(img)], capture_output=True, text=True).stdout
    assert "link" not in ls and "sparse" not in ls and " b " in f" {ls} ", ls


def test_fuzzed_images_give_errors_not_panics(boot, bases, tmp_path):
    """The first 48 images of `make fuzz-images` (seed 31; 1-4 damages
    each; every fourth with 4 KiB blocks)."""
    failed, errs = [], 0
    for i in range(48):
        data, what = imgfuzz.hostile(bases[imgfuzz.block_size(i)], 31, i)
        img = tmp_path / "bad.img"
        img.write_bytes(data)
        r = boot("memcheck run=imgwalk,mem", timeout=60, disk=img)
        ok, why, res = imgfuzz.verdict(r)
        if not ok:
            failed.append((i, why, what))
        errs += bool(res and (res.get("e5") or res.get("e117")))
    assert not failed, failed
    assert errs >= 10, f"only {errs} of 48 images gave EIO or EUCLEAN: the damage reached little"


def put32(data, off, v):
    struct.pack_into("<I", data, off, v)


def ind(fs, owner, level):
    return next(b for b, lv, ino in fs.indirect if ino == fs.paths[owner] and lv == level)


# (name, damage(data, fs), the walker must meet EUCLEAN)
DAMAGES = [
    ("indirect_names_itself", lambda d, fs: put32(d, ind(fs, "/large", 1) * 1024 + 8,
                                                  ind(fs, "/large", 1)), True),
    ("double_indirect_names_itself", lambda d, fs: put32(d, ind(fs, "/large", 2) * 1024,
                                                         ind(fs, "/large", 2)), True),
    ("triple_indirect_loop", lambda d, fs: put32(d, ind(fs, "/sparse", 2) * 1024,
                                                 ind(fs, "/sparse", 3)), True),
    ("block_past_the_disk", lambda d, fs: put32(d, fs.iofs(fs.paths["/hello"]) + 40, 0xffffffff),
     True),
    ("indirect_entry_past_the_disk", lambda d, fs: put32(d, ind(fs, "/large", 1) * 1024 + 4,
                                                         fs.nblocks), True),
    ("huge_file_size", lambda d, fs: (put32(d, fs.iofs(fs.paths["/hello"]) + 4, 0xffffffff),
                                      put32(d, fs.iofs(fs.paths["/hello"]) + 108, 0xffffffff)),
     True),
    ("huge_directory_size", lambda d, fs: put32(d, fs.iofs(fs.paths["/a"]) + 4, 0xfffffc00),
     True),
    ("links_zero", lambda d, fs: struct.pack_into("<H", d, fs.iofs(fs.paths["/hello"]) + 26, 0),
     False),
    ("rec_len_zero", lambda d, fs: struct.pack_into("<H", d, fs.entries["/a/one"] + 4, 0), True),
    ("rec_len_past_the_block", lambda d, fs: struct.pack_into("<H", d, fs.entries["/a/one"] + 4,
                                                              1028), True),
    # "." of /a: rec_len 12, name_len 200
    ("name_len_past_rec_len", lambda d, fs: d.__setitem__(fs.blocks(fs.paths["/a"])[0] * 1024 + 6,
                                                          200), True),
    ("root_not_a_directory", lambda d, fs: struct.pack_into("<H", d, fs.iofs(2), 0x81a4), True),
    ("inode_past_the_count", lambda d, fs: put32(d, fs.entries["/hello"], fs.ninodes + 1), True),
    ("directory_names_the_root", lambda d, fs: put32(d, fs.entries["/a/b/c"], 2), False),
    ("directory_names_itself", lambda d, fs: put32(d, fs.entries["/a/b"], fs.paths["/a"]), False),
    ("inode_table_past_the_disk", lambda d, fs: put32(d, 2048 + 8, fs.nblocks), True),
    ("inode_table_on_the_superblock", lambda d, fs: put32(d, 2048 + 8, 1), True),
    ("block_bitmap_all_free", lambda d, fs: d.__setitem__(
        slice(struct.unpack_from("<I", d, 2048)[0] * 1024,
              struct.unpack_from("<I", d, 2048)[0] * 1024 + 1024), bytes(1024)), False),
    ("bad_magic", lambda d, fs: struct.pack_into("<H", d, 1024 + 56, 0xef52), True),
]


@pytest.mark.parametrize("name,damage,euclean", DAMAGES, ids=[d[0] for d in DAMAGES])
def test_each_damage_gives_errors_not_panics(boot, base, tmp_path, name, damage, euclean):
    data = bytearray(base)
    damage(data, imgfuzz.Ext2(base))
    img = tmp_path / f"{name}.img"
    img.write_bytes(bytes(data))
    res = walk(boot("memcheck run=imgwalk,mem", timeout=60, disk=img))
    if euclean:
        assert res.get("e117", 0) > 0, res


def blkdebug(tmp_path, base, rule):
    img = tmp_path / "dev.img"
    img.write_bytes(base)
    cfg = tmp_path / "blkdebug.cfg"
    cfg.write_text("[inject-error]\n" + "".join(f'{k} = "{v}"\n' for k, v in rule.items()))
    return qemu.disk_args(f"blkdebug:{cfg}:{img}")


def test_device_read_error_gives_eio(boot, base, tmp_path):
    """Every read of the sectors of /large's 100th block fails (EIO from
    the device): reading /large gives EIO, the rest of the walk works,
    and a second program reads /hello afterwards."""
    fs = imgfuzz.Ext2(base)
    blocks = fs.blocks(fs.paths["/large"])
    extra = blkdebug(tmp_path, base, {"event": "read_aio", "errno": EIO,
                                      "sector": blocks[100] * 2})
    r = boot("memcheck run=imgwalk,mem run=filetest,cat,4096,/hello", timeout=60, extra=extra)
    done(r, 0)
    res = walk(r)
    assert res.get("e5") == 1 and "imgwalk: line 65: errno 5" in r.lines, res
    assert res.get("e117") is None, res
    cat = only(r, "result", name="filetest", mode="cat")
    assert cat["open"] == 0 and cat["size"] == len(b"hello, hostile disk\n"), cat


def test_device_write_error_gives_eio_at_fsync(boot, base, tmp_path):
    """Every write fails: the write calls succeed into the cache, fsync
    gives EIO, the halt says what was not written, nothing hangs."""
    extra = blkdebug(tmp_path, base, {"event": "write_aio", "errno": EIO})
    r = boot("memcheck run=imgwalk,mem", timeout=60, extra=extra)
    done(r, 0)
    res = walk(r)
    assert res.get("e5") == 1 and any(l.startswith("imgwalk: line") and "errno 5" in l
                                      for l in r.lines), res
    assert any("disk blocks not written at halt" in l for l in r.lines)
