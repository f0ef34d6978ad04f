"""open() after a wait for the disk runs again from the start
(kernel/sysfile.c); what the first pass did must not change what the
second gives. progs/posix/exclrace.c opens 500 files at -smp 2 while a
child reads an 8 MB file over and over through a 32-buffer block cache,
so the blocks an open needs after its first lookup are often evicted:
- excl: O_CREAT|O_EXCL of new names. The pass that made the file blocked
  later (its second lookup) and the pass after it found the file: EEXIST
  (7 and 12 of 500 in two runs before the fix). Now the step that makes
  the file holds it and the open needs no block after it.
- reopen: existing files, no O_CREAT. A pass whose second lookup blocked
  dropped its hold and still installed the descriptor, holding nothing:
  the kernel panicked at the exit ("ino_drop: inode N is not held", every
  one of four runs before the fix).
Events counted, not timed: a run without evictions would pass, so the
figures (bcache, sizes) keep them frequent."""
import subprocess

import pytest
from helpers import MKE2FS, needs_e2fsprogs, result, done
from test_ext2write import fsck_clean

pytestmark = needs_e2fsprogs


def image(tmp_path):
    tree = tmp_path / "tree"
    (tree / "x").mkdir(parents=True)
    (tree / "big").write_bytes(bytes(range(256)) * (8 << 12))
    for i in range(1, 1501):
        (tree / "x" / f"existing-entry-with-a-long-name-{i}").write_bytes(b"")
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "4096", "-d", str(tree), str(img), "64M"],
                   check=True, capture_output=True)
    return img


@pytest.mark.parametrize("mode", ["excl", "reopen"])
def test_an_open_that_waits_runs_again_cleanly(boot, tmp_path, mode):
    img = image(tmp_path)
    arg = ",reopen" if mode == "reopen" else ""
    r = boot(f"bcache=32 run=exclrace,pkg=fifo,500{arg}", smp=2, timeout=240, disk=img)
    res = result(r, "exclrace")
    assert res["failures"] == 0 and res["eexist"] == 0 and res["other"] == 0 and res["moved"] == 0, res
    done(r, 0)
    fsck_clean(img)
