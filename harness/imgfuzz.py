"""
`make fuzz-images`: hostile ext2 images, each booted with a program that
uses every part of it (progs/tests/imgwalk.c: the whole tree listed,
stat-ed and read, then an append, an unlink, a mkdir, a create, a write,
a read-back, an unlink and an rmdir).

    python3 -m harness.imgfuzz [--n 1000] [--seed S] [--jobs 2]
                               [--out build/imgfuzz.json]

The base image (1 KiB blocks, so every level of indirect block is used;
every fourth image 4 KiB blocks) has four groups and holds directories
three deep, a directory of several blocks, small files, a file through
double indirect blocks, a sparse file whose tail needs triple indirect
blocks (1 KiB) and a symbolic link. Its metadata is found by
parsing it here (superblock, group descriptors, inodes, directory
entries, block maps), and each image gets 1-4 damages, deterministic from
(seed, index): bytes flipped anywhere in the metadata, or hostile values
put where they hurt most (block pointers out of range or into a cycle,
huge sizes and link counts, rec_len 0 or past its block, name_len past
rec_len, inode numbers past the count, a directory entry naming an
ancestor, a group descriptor's table pointing past the disk or at the
superblock). An image passes when the run ends normally (no panic, no
hang: QEMU's timeout and the kernel's watchdog), the walker was not
killed, available memory came back exactly (memcheck), and every error
the walker met is one a damaged image may give (ALLOWED).
"""
import argparse
import json
import random
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import BUILD, qemu
from .disk import tool

# block size: (blocks per group, so that there are four groups)
GEOMETRY = {1024: 1024, 4096: 256}
# errnos a damaged image may give the walker's calls: EIO, EUCLEAN and
# what a wrong but well-formed structure means (a name gone, a type
# changed, a full bitmap, a directory that looks non-empty, ...)
ALLOWED = {2: "ENOENT", 5: "EIO", 17: "EEXIST", 20: "ENOTDIR", 21: "EISDIR", 22: "EINVAL",
           27: "EFBIG", 28: "ENOSPC", 36: "ENAMETOOLONG", 39: "ENOTEMPTY", 40: "ELOOP",
           117: "EUCLEAN"}


def make_tree(root):
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "hello").write_bytes(b"hello, hostile disk\n")
    (root / "a" / "one").write_bytes(bytes(range(256)) * 7)
    (root / "a" / "b" / "two").write_bytes(b"two\n" * 900)
    (root / "a" / "b" / "c" / "deep").write_bytes(b"deep\n")
    (root / "large").write_bytes(bytes((i * 131) & 0xff for i in range(400 << 10)))
    with open(root / "sparse", "wb") as f:
        f.seek(65 << 20)
        f.write(b"tail" * 256)
    (root / "many").mkdir()
    for i in range(60):
        (root / "many" / f"an-entry-with-a-long-name-{i:03d}").write_bytes(b"%d\n" % i)
    (root / "link").symlink_to("a/b/two")


def base_image(path, bs=1024):
    with tempfile.TemporaryDirectory() as d:
        tree = Path(d) / "tree"
        tree.mkdir()
        make_tree(tree)
        subprocess.run([tool("mke2fs"), "-q", "-F", "-t", "ext2", "-b", str(bs), "-N", "128", "-g", str(GEOMETRY[bs]),
                        "-d", str(tree), str(path), "4M"], check=True, capture_output=True)
    return path


class Ext2:
    """The metadata of an ext2 image: byte ranges of the
    superblock, descriptors, used inodes, directory blocks and indirect
    blocks, and where the fields the damages aim at are."""

    def __init__(self, data):
        self.d = data
        u32 = lambda off: struct.unpack_from("<I", data, off)[0]
        self.ninodes, self.nblocks = u32(1024), u32(1028)
        self.ipg, self.isize = u32(1024 + 40), struct.unpack_from("<H", data, 1024 + 88)[0]
        self.bs, first = 1024 << u32(1024 + 24), u32(1024 + 20)
        self.ngroups = -(-(self.nblocks - first) // u32(1024 + 32))
        self.gdt = (first + 1) * self.bs          # the group descriptors
        self.tables = [u32(self.gdt + 32 * g + 8) for g in range(self.ngroups)]
        self.inodes, self.dirblocks, self.indirect, self.dirents = {}, [], [], []
        self.paths, self.entries = {"/": 2}, {}     # path: inode, path: its entry's offset
        self.walk(2, 0, "")

    def iofs(self, ino):
        g, i = divmod(ino - 1, self.ipg)
        return self.tables[g] * self.bs + i * self.isize

    def u32(self, off):
        return struct.unpack_from("<I", self.d, off)[0]

    def blocks(self, ino):
        """The data blocks of ino in file order (holes skipped), noting
        its indirect blocks as (block, level, inode)."""
        o, out = self.iofs(ino), []
        ptrs = [self.u32(o + 40 + 4 * i) for i in range(15)]
        out += [b for b in ptrs[:12] if b]

        def down(b, lv):
            if not b or b >= self.nblocks:
                return
            if lv == 0:
                out.append(b)
                return
            self.indirect.append((b, lv, ino))
            for k in range(self.bs // 4):
                down(self.u32(b * self.bs + 4 * k), lv - 1)
        for lv in (1, 2, 3):
            down(ptrs[11 + lv], lv)
        return out

    def walk(self, ino, depth, path):
        if ino in self.inodes or depth > 8:
            return
        mode = struct.unpack_from("<H", self.d, self.iofs(ino))[0]
        self.inodes[ino] = mode
        blocks = self.blocks(ino) if mode >> 12 != 0xa else []
        if mode >> 12 != 4:
            return
        for b in blocks:
            self.dirblocks.append(b)
            at = 0
            while at < self.bs:
                n, rec, nlen = struct.unpack_from("<IHB", self.d, b * self.bs + at)
                self.dirents.append((b * self.bs + at, ino, n))
                name = self.d[b * self.bs + at + 8:b * self.bs + at + 8 + nlen]
                if n and nlen and name not in (b".", b".."):
                    sub = f"{path}/{name.decode(errors='replace')}"
                    self.paths[sub], self.entries[sub] = n, b * self.bs + at
                    self.walk(n, depth + 1, sub)
                if rec < 8:
                    break
                at += rec


def hostile32(fs, rng):
    return rng.choice([0, 1, fs.nblocks, fs.nblocks - 1, fs.nblocks + 1, 0xffffffff, 0x80000000,
                       rng.randrange(1 << 32), fs.tables[0], 1, 2])


def damage(data, fs, rng):
    """One damage to data (a bytearray) in place; returns what it did."""
    put32 = lambda off, v: struct.pack_into("<I", data, off, v & 0xffffffff)
    put16 = lambda off, v: struct.pack_into("<H", data, off, v & 0xffff)
    used = sorted(fs.inodes)
    kind = rng.choice(["flip", "flip", "flip", "sb", "gd", "isize", "ilinks", "imode", "iblock",
                       "indcycle", "indrange", "rec_len", "name_len", "dirino", "dirloop", "bitmap",
                       "counts"])
    if kind == "flip":
        regions = ([(1024, 1024 + 204), (fs.gdt, fs.gdt + 32 * fs.ngroups)]
                   + [(fs.iofs(i), fs.iofs(i) + 128) for i in used]
                   + [(b * fs.bs, b * fs.bs + fs.bs) for b in fs.dirblocks]
                   + [(b * fs.bs, b * fs.bs + fs.bs) for b, _, _ in fs.indirect])
        lo, hi = rng.choice(regions)
        at = rng.randrange(lo, hi)
        data[at] = rng.choice([0, 0xff, data[at] ^ (1 << rng.randrange(8)), rng.randrange(256)])
        return f"flip byte {at}"
    if kind == "sb":
        off = rng.choice([0, 4, 20, 24, 32, 40, 56, 76, 84, 88, 96, 100])
        if off in (56, 88):
            put16(1024 + off, rng.choice([0, 1, 0xffff, 256, 64, 4096]))
        else:
            put32(1024 + off, rng.choice([0, 1, 2, 3, 8, 0xffff, 0xffffffff, 1 << 20,
                                          fs.nblocks * 2]))
        return f"superblock field {off}"
    if kind == "gd":
        g = rng.randrange(fs.ngroups)
        off = rng.choice([0, 4, 8])
        put32(fs.gdt + 32 * g + off, rng.choice([0, 1, 2, fs.nblocks - 1, fs.nblocks,
                                               0xffffffff, fs.nblocks - 2]))
        return f"group {g} descriptor field {off}"
    if kind == "bitmap":
        # all free (the next allocation takes a block or inode in use) or
        # all used (ENOSPC however the counts read)
        g, which = rng.randrange(fs.ngroups), rng.choice([0, 4])
        b = struct.unpack_from("<I", data, fs.gdt + 32 * g + which)[0]
        if 0 < b < fs.nblocks:
            data[b * fs.bs:(b + 1) * fs.bs] = bytes([rng.choice([0, 0xff])]) * fs.bs
        return f"group {g} {'block' if which == 0 else 'inode'} bitmap filled"
    if kind == "counts":
        g = rng.randrange(fs.ngroups)
        put16(fs.gdt + 32 * g + rng.choice([12, 14, 16]), rng.choice([0, 0xffff, 1]))
        put32(1024 + rng.choice([12, 16]), rng.choice([0, 0xffffffff, 1]))
        return f"group {g} and superblock free counts"
    ino = rng.choice(used)
    o = fs.iofs(ino)
    if kind == "isize":
        put32(o + 4, rng.choice([0xffffffff, 0x7fffffff, 1 << 30, 0, 1, fs.bs + 1]))
        if rng.random() < 0.5:
            put32(o + 108, rng.choice([1, 0xffffffff, 0x100]))
        return f"inode {ino} size"
    if kind == "ilinks":
        put16(o + 26, rng.choice([0, 1, 0xffff]))
        return f"inode {ino} links"
    if kind == "imode":
        put16(o, rng.choice([0, 0x41ed, 0x81a4, 0xa1ff, 0x2000, 0xffff]))
        return f"inode {ino} mode"
    if kind == "iblock":
        i = rng.randrange(15)
        put32(o + 40 + 4 * i, rng.choice([hostile32(fs, rng), ino and fs.tables[0]]))
        return f"inode {ino} block pointer {i}"
    if kind in ("indcycle", "indrange") and fs.indirect:
        b, lv, owner = rng.choice(fs.indirect)
        k = rng.randrange(fs.bs // 4) if rng.random() < 0.5 else rng.randrange(4)
        if kind == "indcycle":
            # the block itself, or another indirect block (a cycle, or a
            # level read as the wrong one)
            put32(b * fs.bs + 4 * k, rng.choice([b] + [x for x, _, _ in fs.indirect]))
        else:
            put32(b * fs.bs + 4 * k, hostile32(fs, rng))
        return f"indirect block {b} (level {lv}, inode {owner}) entry {k}: {kind}"
    at, dino, n = rng.choice(fs.dirents)
    if kind == "rec_len":
        put16(at + 4, rng.choice([0, 1, 4, 6, 7, 9, fs.bs, fs.bs + 4, 0xffff, 12]))
        return f"dirent at {at} rec_len"
    if kind == "name_len":
        data[at + 6] = rng.choice([0, 255, data[at + 4] + 1, 200])
        return f"dirent at {at} name_len"
    if kind == "dirino":
        put32(at, rng.choice([fs.ninodes + 1, 0xffffffff, 1, 0, fs.ninodes, 7]))
        return f"dirent at {at} inode"
    # dirloop: an entry names its own directory or the root (a cycle a
    # walk that follows names must bound)
    put32(at, rng.choice([dino, 2]))
    return f"dirent at {at} names inode {dino} or the root"


def hostile(base, seed, i):
    """(image bytes, damages) for image i of seed."""
    rng = random.Random(seed * 1_000_003 + i)
    data = bytearray(base)
    fs = Ext2(bytes(base))
    what = [damage(data, fs, rng) for _ in range(rng.randint(1, 4))]
    return bytes(data), what


def verdict(r):
    """(ok, why, walk result) of one boot."""
    walk = next((e for e in r.results if e.get("name") == "imgwalk" and e.get("mode") == "walk"),
                None)
    mem = next((e for e in r.results if e.get("name") == "imgwalk" and e.get("mode") == "mem"), None)
    if r.kind != "done" or r.status != 0:
        return False, f"{r.kind} status {r.status}", walk
    if mem is None or mem.get("child") != 0:
        return False, f"walker ended badly: {mem}", walk
    if mem.get("avail_lost") != 0:
        return False, f"memory lost: {mem.get('avail_lost')} bytes", walk
    if walk is None:
        return False, "no walk result", walk
    bad = {k: v for k, v in walk.items() if k.startswith("e") and k[1:].isdigit()
           and int(k[1:]) not in ALLOWED}
    if bad or walk.get("other"):
        return False, f"unexpected errors {bad} other {walk.get('other')}", walk
    return True, "", walk


def run_image(image, timeout=90, smp=1):
    return qemu.run(f"memcheck watchdog={max(20, timeout - 20)} run=imgwalk,mem", smp=smp,
                    timeout=timeout, disk=image)


def block_size(i):
    """Image i's block size: every fourth has 4 KiB blocks, the rest 1 KiB
    (every level of indirect block)."""
    return 4096 if i % 4 == 3 else 1024


def one(base, seed, i, workdir, timeout):
    data, what = hostile(base, seed, i)
    img = Path(workdir) / f"img{i}.img"
    img.write_bytes(data)
    r = run_image(img, timeout)
    ok, why, walk = verdict(r)
    row = {"index": i, "bs": block_size(i), "ok": ok, "why": why, "damage": what, "kind": r.kind,
           "elapsed_s": round(r.elapsed, 1), "walk": walk}
    if not ok:
        row["tail"] = r.tail(30)
        keep = BUILD / "imgfuzz-failed"
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"seed{seed}-img{i}.img").write_bytes(data)
    img.unlink()
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m harness.imgfuzz")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--first", type=int, default=0, help="first image index")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=90)
    ap.add_argument("--out", default=str(BUILD / "imgfuzz.json"))
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as d:
        bases = {bs: base_image(Path(d) / f"base{bs}.img", bs).read_bytes() for bs in GEOMETRY}
        # the undamaged images first, alone: they must pass, and the first
        # strips the programs once (qemu.py's stripping is per process,
        # not per thread)
        for bs, base in bases.items():
            (Path(d) / "clean.img").write_bytes(base)
            ok, why, _ = verdict(run_image(Path(d) / "clean.img", a.timeout))
            if not ok:
                print(f"imgfuzz: the undamaged {bs}-byte-block image fails: {why}")
                return 1
        with ThreadPoolExecutor(a.jobs) as ex:
            rows = []
            for row in ex.map(lambda i: one(bases[block_size(i)], a.seed, i, d, a.timeout),
                              range(a.first, a.first + a.n)):
                rows.append(row)
                if not row["ok"]:
                    print(f"imgfuzz: seed {a.seed} image {row['index']} FAILED: {row['why']}; "
                          f"{row['damage']}", flush=True)
                elif len(rows) % 50 == 0:
                    print(f"imgfuzz: {len(rows)} images, {sum(not r['ok'] for r in rows)} failed",
                          flush=True)
    errs = {}
    for r in rows:
        for k, v in (r["walk"] or {}).items():
            if k.startswith("e") and k[1:].isdigit():
                errs[k] = errs.get(k, 0) + v
    summary = {
        "images": len(rows), "seed": a.seed, "passed": sum(r["ok"] for r in rows),
        "panics": sum(r["kind"] == "panic" for r in rows),
        "hangs": sum(r["kind"] == "timeout" for r in rows),
        "failed": [r["index"] for r in rows if not r["ok"]],
        "calls_ok": sum((r["walk"] or {}).get("ok", 0) for r in rows),
        "errors": dict(sorted(errs.items(), key=lambda kv: int(kv[0][1:]))),
        "images_with_eio_or_euclean": sum(bool((r["walk"] or {}).get("e5") or
                                               (r["walk"] or {}).get("e117")) for r in rows),
        "wall_s": round(time.monotonic() - t0, 1),
    }
    with open(a.out, "w") as f:
        json.dump({"summary": summary, "images": rows}, f, indent=1)
    print(f"imgfuzz: {json.dumps(summary)}")
    print(f"imgfuzz: details in {a.out}")
    ok = summary["passed"] == summary["images"]
    print("imgfuzz: PASS" if ok else "imgfuzz: FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
