"""progs/posix/libcx and libcxfs: the library calls third-party code
expects that ulib lacked (issue 34; docs/libc.md). Neither program built
before (fnmatch, glob, nftw, scandir, strverscmp, strptime, fmemopen,
open_memstream, getrandom, termios, syslog, <grp.h>, wait4, the *at calls,
statvfs ... did not link).

Where glibc has the same call, the guest's figures are checked against
the host's glibc, called through ctypes with the same arguments: fnmatch
and strverscmp on a table of cases, strptime's end and every struct tm
field, and (libcxfs, on a disk image of a tree this file builds) glob
with each flag, nftw's and ftw's visits, scandir with alphasort and
versionsort, all run in the host's copy of the tree. The rest are the
programs' own checks against glibc's documented results, and statvfs
against dumpe2fs's figures of the image before and after the guest
writes to it."""
import ctypes
import ctypes.util
import functools
import os
import re
import subprocess

import pytest
from harness import disk
from helpers import done, needs_e2fsprogs, result

libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def results(r, name):
    return [e for e in r.events("result") if e.get("name") == name]


class Tm(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int) for n in
                ("sec", "min", "hour", "mday", "mon", "year", "wday", "yday", "isdst")] + \
               [("gmtoff", ctypes.c_long), ("zone", ctypes.c_char_p)]


def host_strptime(s, f):
    tm = Tm()
    libc.strptime.restype = ctypes.c_void_p
    buf = ctypes.create_string_buffer(s.encode())
    end = libc.strptime(buf, f.encode(), ctypes.byref(tm))
    got = [tm.sec, tm.min, tm.hour, tm.mday, tm.mon, tm.year, tm.wday, tm.yday, tm.isdst, tm.gmtoff]
    return (end - ctypes.addressof(buf) if end else -1), got


def sign(x):
    return (x > 0) - (x < 0)


def test_libcx(boot):
    r = boot("run=libcx,pkg=fifo", smp=1, timeout=120)
    done(r, 0)
    fnm = results(r, "fnm")
    assert len(fnm) == 52, len(fnm)
    bad = [(e["p"], e["s"], e["fl"], e["r"]) for e in fnm
           if e["r"] != libc.fnmatch(e["p"].encode(), e["s"].encode(), e["fl"])]
    assert not bad, bad
    vers = results(r, "vers")
    assert len(vers) == 18
    bad = [e for e in vers if e["r"] != sign(libc.strverscmp(e["a"].encode(), e["b"].encode()))]
    assert not bad, bad
    pt = results(r, "ptime")
    assert len(pt) == 19
    for e in pt:
        end, tm = host_strptime(e["s"], e["f"])
        assert e["end"] == end, (e, end, tm)
        if end >= 0:
            assert e["tm"] == tm, (e, tm)
    res = result(r, "libcx_checks")
    assert res["failures"] == 0 and res["checks"] >= 60, r.tail()
    # syslog: the ident, LOG_PID's pid, facility|priority; the mask hides LOG_INFO;
    # after closelog the program's name and LOG_USER; %m is strerror(errno)
    logs = [l for l in r.lines if re.match(r"<\d+>", l)]
    pid = logs[0].split("[")[1].split("]")[0] if logs else "?"
    assert logs == [f"<131>cxlog[{pid}]: hello 5", f"<28>cxlog[{pid}]: warned",
                    "<10>libcx: gone: No such file or directory"], logs


# ---- libcxfs: the file-system calls, on an image of a known tree ----

class Glob(ctypes.Structure):
    _fields_ = [("pathc", ctypes.c_size_t), ("pathv", ctypes.POINTER(ctypes.c_char_p)),
                ("offs", ctypes.c_size_t), ("flags", ctypes.c_int)] + \
               [(n, ctypes.c_void_p) for n in ("closedir", "readdir", "opendir", "lstat", "stat")]


class FTW(ctypes.Structure):
    _fields_ = [("base", ctypes.c_int), ("level", ctypes.c_int)]


NFTW_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int,
                           ctypes.POINTER(FTW))
FTW_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int)
GLOB_DOOFFS, GLOB_APPEND, GLOB_NOSORT, GLOB_MAGCHAR = 8, 32, 4, 256
FTW_DEPTH, FTW_CHDIR = 8, 4


def host_glob(pattern, flags, g):
    r = libc.glob(pattern.encode(), flags, None, ctypes.byref(g))
    offs = g.offs if flags & GLOB_DOOFFS else 0
    v = []
    if r in (0, 3) or flags & GLOB_APPEND:
        v = [(g.pathv[i] or b"(null)").decode() for i in range(offs + g.pathc)] if g.pathv else []
    return r, v, int(bool(g.flags & GLOB_MAGCHAR))


def host_walk(path, flags, old=False):
    seen = []

    def visit(p, st, t, f=None):
        cwd = os.getcwd()
        seen.append((p.decode(), t, f.contents.level if f else -1, f.contents.base if f else -1, cwd))
        return 0
    if old:
        cb = FTW_FN(lambda p, st, t: visit(p, st, t))
        assert libc.ftw(path.encode(), cb, 4) == 0
    else:
        cb = NFTW_FN(visit)
        assert libc.nftw(path.encode(), cb, 4, flags) == 0
    return seen


def build_tree(t):
    (t / "dir1" / ".dot").mkdir(parents=True)
    (t / "dir2").mkdir()
    (t / "sub" / "deep" / "deeper").mkdir(parents=True)
    (t / "sub" / "deep" / "deeper" / "leaf.txt").write_text("leaf\n")
    for name in ("a.txt", "b.c", ".hidden", "file1", "file2", "file10", "v1.10", "v1.9", "v1.2",
                 "dir1/x.c", "dir1/y.h", "dir1/.dot/z", "dir1/.hid.c", "dir2/w.c"):
        (t / name).write_text(name + "\n")
    os.symlink("dir1", t / "link_to_dir1")
    os.symlink("nowhere", t / "dangling")


@pytest.fixture(scope="module")
def fstree(tmp_path_factory):
    d = tmp_path_factory.mktemp("libcx")
    build_tree(d / "root" / "t" / "tree")
    image = d / "fs.img"
    disk.make_image(d / "root", image)
    return image, d / "root" / "t"


def dumpe2fs(image):
    out = subprocess.run([disk.tool("dumpe2fs"), "-h", str(image)], check=True, capture_output=True,
                         text=True).stdout
    f = dict(l.split(":", 1) for l in out.splitlines() if ":" in l)
    return {k: int(f[k].strip()) for k in ("Block count", "Free blocks", "Reserved block count",
                                          "Inode count", "Free inodes", "Block size")}


def check_vfs(v, fs):
    assert v["bsize"] == v["frsize"] == fs["Block size"] and v["namemax"] == 255, (v, fs)
    assert v["blocks"] == fs["Block count"] and v["bfree"] == fs["Free blocks"], (v, fs)
    assert v["bavail"] == fs["Free blocks"] - fs["Reserved block count"], (v, fs)
    assert v["files"] == fs["Inode count"] and v["ffree"] == v["favail"] == fs["Free inodes"], (v, fs)
    assert v["flag"] == 1024, v    # ST_NOATIME alone: reads never touch atime (docs/files.md)


@needs_e2fsprogs
@pytest.mark.parametrize("smp", [1, 2])
def test_libcxfs(boot, fstree, tmp_path, smp):
    import shutil
    image, host_t = fstree
    img = tmp_path / "fs.img"
    shutil.copy(image, img)
    before = dumpe2fs(img)
    r = boot("run=libcxfs,pkg=fifo", smp=smp, timeout=180, disk=img)
    done(r, 0)
    res = result(r, "libcxfs_checks")
    assert res["failures"] == 0 and res["checks"] >= 70, r.tail()
    old = os.getcwd()
    os.chdir(host_t)
    try:
        globs = results(r, "glob")
        assert len(globs) == 31, len(globs)
        g, bad = Glob(), []
        for i, e in enumerate(globs):
            if i < 30:
                g = Glob()
            if e["fl"] & GLOB_DOOFFS and not e["fl"] & GLOB_APPEND:
                g.offs = 2
            want = host_glob(e["p"], e["fl"], g)
            got = (e["r"], e["v"], e["magchar"])
            if e["fl"] & GLOB_NOSORT:
                got, want = (got[0], sorted(got[1]), got[2]), (want[0], sorted(want[1]), want[2])
            if got != want:
                bad.append((e["p"], e["fl"], got, want))
        assert not bad, bad
        walks = results(r, "walk")
        for fl in (0, 1, FTW_DEPTH, 1 | FTW_DEPTH, FTW_CHDIR | 1, 2, -1):
            got = [(e["path"], e["type"], e["level"], e["base"], e["cwd"]) for e in walks
                   if e["fl"] == fl]
            want = host_walk("tree/" if fl == -1 else "tree", fl, old=fl == -1)
            want = [(p, t, lv, b, c[len(str(host_t)) - 2:] if fl & FTW_CHDIR and fl > 0 else "/t")
                    for p, t, lv, b, c in want]
            # following links, dir1 is walked once, as "tree/dir1" or "tree/link_to_dir1"
            # (whichever readdir gives first, on each side): compared under one name
            assert all(p[b:] == os.path.basename(p) for p, _, _, b, _ in got + want if b >= 0), got
            same = lambda v: sorted((p.replace("tree/link_to_dir1", "tree/dir1"), t, lv, c)
                                    for p, t, lv, b, c in v)
            assert same(got) == same(want), (fl, set(same(got)) ^ set(same(want)))
            order = [p for p, *_ in got]      # a directory before (or, FTW_DEPTH, after) its entries
            for p, t, *_ in got:
                if t in (1, 5):
                    kids = [q for q in order if q.startswith(p + "/")]
                    at = order.index(p)
                    assert all((order.index(q) > at) == (t == 1) for q in kids), (fl, p, order)
        scans = {e["how"]: e for e in results(r, "scan")}
        names = sorted(os.listdir("tree") + [".", ".."])
        assert scans["alpha"]["v"] == names, scans
        vsort = sorted(names, key=functools.cmp_to_key(
            lambda a, b: libc.strverscmp(a.encode(), b.encode())))
        assert scans["version"]["v"] == vsort and vsort != names, scans
    finally:
        os.chdir(old)
    # statvfs: the superblock's figures, before and (after 1 MiB and sync) as the image says now
    vfs = {e["when"]: e for e in results(r, "vfs")}
    check_vfs(vfs["before"], before)
    after = dumpe2fs(img)
    check_vfs(vfs["after"], after)
    assert after["Free blocks"] <= before["Free blocks"] - 256, (before, after)
    fsck = subprocess.run([disk.tool("e2fsck"), "-fn", str(img)], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout
