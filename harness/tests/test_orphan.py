"""An unlinked file lives while it is open or mapped and is freed after
its last holder (kernel/orphan.c); a shared page's stores reach the file
when its last mapper ends without msync, and more shared pages than the
old 4,096-entry table stay one memory (kernel/fshare.c). The guest
(progs/posix/orphan.c) checks the files through their descriptors and
maps, the orphans counted (INFO_ORPHAN) and its memory back exactly; the
host checks the image after the halt: e2fsck -fn clean, the free blocks
and inodes what they were before the boot (every orphan's blocks came
back), and /keep holding the stores of the child that _exited."""
import re
import subprocess

import pytest
from harness import BUILD
from helpers import audit_passed, DEBUGFS, MKE2FS, needs_e2fsprogs, pkg_cases
from test_ext2write import fsck_clean

pytestmark = needs_e2fsprogs

KEEP = 6 * 4096


def image(tmp_path):
    tree = tmp_path / "tree"
    for d in ("bin", "tmp", "dev/shm"):
        (tree / d).mkdir(parents=True)
    (tree / "tmp").chmod(0o1777)
    (tree / "bin" / "orphan").write_bytes((BUILD / "progs" / "orphan").read_bytes())
    (tree / "bin" / "orphan").chmod(0o755)
    (tree / "keep").write_bytes(b"k" * KEEP)       # (not zeros: blocks, not holes)
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-d", str(tree), str(img), "16M"],
                   check=True, capture_output=True)
    return img


def free_counts(img):
    out = subprocess.run(["dumpe2fs", "-h", str(img)], check=True, capture_output=True,
                         text=True).stdout
    return tuple(int(re.search(rf"^Free {w}:\s+(\d+)", out, re.M).group(1)) for w in ("blocks", "inodes"))


def first_orphan(img):
    """The image's s_last_orphan (kernel/ext2orph.c); 0 when its list is
    empty. (e2fsck -fn takes a stale one pointing at a free inode silently.)"""
    out = subprocess.run(["dumpe2fs", "-h", str(img)], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"^First orphan inode:\s+(\d+)", out, re.M)
    return int(m.group(1)) if m else 0


def pat(i, salt):
    return (i * 131 + salt * 7 + (i >> 10)) & 0xff


# Each case (progs/posix/orphan.c) and the orphans it makes; "all" runs
# them one after another in one process.
CASES = {"unlinked": 1, "shm": 1, "rename": 1, "rmdir": 1, "killed": 1, "stores": 0, "many": 1}
CASES["all"] = sum(CASES.values())


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread"]))
def test_unlinked_files_live_until_their_last_holder(boot, tmp_path, pkg, smp, case):
    img = image(tmp_path)
    before = free_counts(img)
    r = boot(f"memcheck run=orphan,pkg={pkg},{case}", smp=smp, timeout=240, disk=img)
    res = audit_passed(r, "orphan")
    n = CASES[case]
    assert res["made"] == n and res["freed"] == n and res["now"] == 0 and res["pkg"] == pkg, res
    fsck_clean(img)
    assert free_counts(img) == before
    assert first_orphan(img) == 0
    out = tmp_path / "keep"
    subprocess.run([DEBUGFS, "-R", f"dump /keep {out}", str(img)], check=True, capture_output=True)
    data = out.read_bytes()
    stored = case in ("stores", "all")
    assert data == (bytes(pat(i, 6) for i in range(KEEP)) if stored else b"k" * KEEP), data[:16]
