"""Symbolic links (kernel/ext2link.c, ulib/libc/link.c): an image made by
mke2fs -d from a host tree holding fast (under 60 bytes) and slow
targets, absolute and relative ones, a chain of 8 links (followed) and
of 9 (ELOOP), a cycle (ELOOP), a dangling link (ENOENT), links to a
directory and through one, and the longest target (4095 bytes);
progs/posix/symlinks.c reports lstat, readlink, stat, open+read and
opendir for each path, and chdir through those that are directories,
and each figure is checked against what the host's os.lstat,
os.readlink, os.stat and os.listdir say of the same tree, links followed
as the guest follows them (resolve(): absolute targets inside the
image, 8 links at most). Inode numbers are the image's: lstat's and
stat's are compared with each other."""
import errno
import os
import stat as st

import pytest
from harness import disk
from helpers import fnv, needs_e2fsprogs

pytestmark = needs_e2fsprogs

SLOW = "/t/" + "d" * 70 + "/../file.txt"          # 83 bytes: in a data block
LONG = "/t" + "/." * 2042 + "/file.txt"            # 4095 bytes: the longest target


def build(t):
    (t / "dir" / "sub").mkdir(parents=True)
    (t / ("d" * 70)).mkdir()
    (t / "file.txt").write_bytes(b"hello symlinks\n" * 300)
    (t / "dir" / "inner.txt").write_bytes(b"inner\n")
    links = {
        "fast_rel": "file.txt", "fast_abs": "/t/file.txt", "slow_abs": SLOW,
        "slow_rel": "./" + "d" * 70 + "/../dir/inner.txt", "todir": "dir",
        "todir_abs": "/t/dir", "dangling": "nowhere", "cyc_a": "cyc_b", "cyc_b": "cyc_a",
        "dir/up": "../file.txt", "dir/self": ".", "chain0": "file.txt", "long": LONG,
    }
    for i in range(1, 10):
        links[f"chain{i}"] = f"chain{i - 1}"
    for name, target in links.items():
        os.symlink(target, t / name)
    return links


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    d = tmp_path_factory.mktemp("symlink")
    t = d / "tree" / "t"
    t.mkdir(parents=True)
    links = build(t)
    image = d / "fs.img"
    disk.make_image(d / "tree", image)
    return image, d / "tree", links


PATHS = ["file.txt", "dir", "fast_rel", "fast_abs", "slow_abs", "slow_rel", "todir", "todir_abs",
         "todir/inner.txt", "todir_abs/sub", "dangling", "cyc_a", "chain8", "chain9",
         "dir/up", "dir/self", "dir/self/self/inner.txt", "todir/up", "chain8/x", "file.txt/x", "long"]


def host(root, p):
    """What the guest should report for /t/p, from the host tree (absolute
    targets resolve inside root: the image's / is the tree's folder)."""
    full = root / "t" / p
    want = {}
    try:
        last = resolve(root, full.parent) / full.name
        l = os.lstat(last)
        want.update(lstat=0, lmode=l.st_mode, lsize=l.st_size)
    except OSError as e:
        want.update(lstat=-e.errno)
    try:
        t = os.readlink(resolve(root, full.parent) / full.name).encode()
        want.update(readlink=0, tlen=len(t), target=fnv(t))
    except OSError as e:
        want.update(readlink=-e.errno, tlen=-1)
    try:
        s = resolve_stat(root, full)
        want.update(stat=0, mode=s.st_mode, size=s.st_size)
    except OSError as e:
        want.update(stat=-e.errno)
    try:
        data = open_in(root, full).read()
        want.update(read=len(data), hash=fnv(data))
    except OSError as e:
        want.update(read=-e.errno)
    try:
        want.update(dir=len(os.listdir(resolve(root, full))) + 2)
    except OSError as e:
        want.update(dir=-e.errno)
    return want


def resolve(root, full):
    """full with every link followed as the guest does: absolute targets
    under root, at most 8 links (Linux allows 40), ".." of root is root."""
    parts, cur, n = list(full.relative_to(root).parts), root, 0
    while parts:
        name = parts.pop(0)
        if not cur.is_dir():
            raise OSError(errno.ENOTDIR, str(cur))
        nxt = cur / name
        if name in (".", ".."):
            cur = cur.parent if name == ".." and cur != root else cur
        elif os.path.islink(nxt):
            n += 1
            if n > 8:
                raise OSError(errno.ELOOP, str(nxt))
            tgt = os.readlink(nxt)
            cur = root if tgt.startswith("/") else cur
            parts = [x for x in tgt.split("/") if x] + parts
        elif not os.path.lexists(nxt):
            raise OSError(errno.ENOENT, str(nxt))
        else:
            cur = nxt
    return cur


def resolve_stat(root, full):
    return os.stat(resolve(root, full))


def open_in(root, full):
    p = resolve(root, full)
    if p.is_dir():
        raise OSError(errno.EISDIR, str(p))
    return open(p, "rb")


@pytest.mark.parametrize("smp", [1, 2])
def test_symlinks(boot, tree, smp):
    image, root, links = tree
    args = ",".join("/t/" + p for p in PATHS)
    r = boot(f"run=symlinks,pkg=fifo,{args}", smp=smp, timeout=120, disk=image)
    assert [e for e in r.events("result") if e.get("name") == "symlinks_done"], r.output[-2000:]
    got = {e["path"][3:]: e for e in r.events("result") if e.get("name") == "symlinks"}
    assert sorted(got) == sorted(PATHS), sorted(got)
    for p in PATHS:
        want, g = host(root, p), got[p]
        for k, v in want.items():
            assert g[k] == v, (p, k, g[k], v, g)
        if g["lstat"] == 0 and g["stat"] == 0 and not os.path.islink(root / "t" / p):
            assert g["lino"] == g["ino"], g
    # the link and its target: the same inode when followed, another when not
    assert got["fast_abs"]["ino"] == got["file.txt"]["ino"] == got["slow_abs"]["ino"]
    assert got["fast_abs"]["lino"] != got["file.txt"]["ino"]
    assert got["todir"]["ino"] == got["dir"]["ino"] == got["dir/self"]["ino"]
    assert st.S_ISLNK(got["slow_abs"]["lmode"]) and got["slow_abs"]["lsize"] == len(SLOW)
    cds = {e["path"][3:]: e for e in r.events("result") if e.get("name") == "symlinks_cd"}
    for p in ("dir", "todir", "todir_abs", "dir/self", "todir_abs/sub"):
        assert cds[p]["r"] == 0 and cds[p]["dir"] == got[p]["dir"], cds[p]
    assert cds["todir"]["ino"] == got["dir"]["ino"], cds


def test_hostile_links(boot, tree, tmp_path):
    """Links a hostile image makes impossible (debugfs set_inode_field): a
    fast link whose size says 200 bytes (past the 60 its inode holds), a
    slow one whose block is past the disk, one whose size says 5000 (past
    a block and past 4095). lstat still describes each (that is only the
    inode); readlink and every lookup through it give EUCLEAN, or
    ENAMETOOLONG for the 5000, and nothing reads past the inode."""
    import shutil
    import subprocess
    image, root, links = tree
    bad = tmp_path / "bad.img"
    shutil.copy(image, bad)
    for cmd in ("sif /t/fast_rel size 200", "sif /t/slow_abs block[0] 99999999",
                "sif /t/slow_rel size 5000"):
        subprocess.run([disk.tool("debugfs"), "-w", "-R", cmd, str(bad)], check=True,
                       capture_output=True)
    r = boot("run=symlinks,pkg=fifo,/t/fast_rel,/t/slow_abs,/t/slow_rel,/t/fast_abs",
             smp=1, timeout=120, disk=bad)
    got = {e["path"][3:]: e for e in r.events("result") if e.get("name") == "symlinks"}
    want = {"fast_rel": (200, -errno.EUCLEAN), "slow_abs": (len(SLOW), -errno.EUCLEAN),
            "slow_rel": (5000, -errno.ENAMETOOLONG)}
    for p, (size, err) in want.items():
        g = got[p]
        assert g["lstat"] == 0 and st.S_ISLNK(g["lmode"]) and g["lsize"] == size, g
        assert g["readlink"] == g["stat"] == g["read"] == g["dir"] == err, g
    assert got["fast_abs"]["stat"] == 0 and got["fast_abs"]["read"] == 4500, got["fast_abs"]


MADE = [("/t/file.txt", "/t/new_fast"), ("/t/" + "d" * 70 + "/../dir/inner.txt", "/t/new_slow"),
        ("dir", "/t/new_dir"), ("nowhere", "/t/new_dangling"), ("x", "/t/file.txt"),
        ("x", "/t/nodir/new"), ("../file.txt", "/t/todir/new_up")]


def test_symlink_creation(boot, tree, tmp_path):
    """symlink(): fast, slow (76 bytes: a data block), relative, dangling,
    one through a link to a directory, over an existing name (EEXIST), in
    a missing directory (ENOENT), a 4096-byte target (ENAMETOOLONG) and an
    empty one (ENOENT). The guest describes what it made as the host sees
    the same links; e2fsck -fn finds the image clean, and debugfs rdump
    brings back the links with their targets."""
    import shutil
    import subprocess
    image, root, links = tree
    img = tmp_path / "made.img"
    shutil.copy(image, img)
    args = ",".join(f"{t},{p}" for t, p in MADE)
    r = boot(f"run=symlinks,pkg=fifo,-make,{args}", smp=2, timeout=120, disk=img)
    assert [e for e in r.events("result") if e.get("name") == "symlinks_done"], r.output[-2000:]
    bad = [e for e in r.events("result") if e.get("name") == "symlinks_bad"][0]
    assert bad["toolong"] == errno.ENAMETOOLONG and bad["empty"] == errno.ENOENT, bad
    made = {e["path"]: e["r"] for e in r.events("result") if e.get("name") == "symlinks_made"}
    assert made == {"/t/new_fast": 0, "/t/new_slow": 0, "/t/new_dir": 0, "/t/new_dangling": 0,
                    "/t/file.txt": errno.EEXIST, "/t/nodir/new": errno.ENOENT,
                    "/t/todir/new_up": 0}, made
    # the host tree with the same links made: what the guest reports must match it
    host_root = tmp_path / "host"
    shutil.copytree(root, host_root, symlinks=True)
    for t, p in MADE:
        if made[p] == 0:
            where = "/t/dir/new_up" if p == "/t/todir/new_up" else p   # (through the link)
            os.symlink(t, host_root / where.lstrip("/"))
    got = {e["path"][3:]: e for e in r.events("result") if e.get("name") == "symlinks"}
    for t, p in MADE:
        want, g = host(host_root, p[3:]), got[p[3:]]
        for k, v in want.items():
            assert g[k] == v, (p, k, g[k], v, g)
    fsck = subprocess.run([disk.tool("e2fsck"), "-fn", str(img)], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout
    out = tmp_path / "out"
    out.mkdir()
    disk.copy_back(img, out)
    for t, p in MADE:
        if made[p] == 0 and p != "/t/todir/new_up":
            assert os.readlink(out / p.lstrip("/")) == t, p
    assert os.readlink(out / "t" / "dir" / "new_up") == "../file.txt"
