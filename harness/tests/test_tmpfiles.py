"""Temporary files and shared memory objects on the disk
(ulib/libc/tmpfile.c, shm.c; progs/posix/tmpshm.c): mkstemp and its
relatives, mkdtemp, tmpfile (its name removed at fclose), shm_open and
shm_unlink over /dev/shm files, on fifo and kthread at -smp 1 and 2; the
image is e2fsck-clean after and holds the files the host expects; without
a disk every call fails with its error."""
import shutil
import subprocess

import pytest
from helpers import done, result, DEBUGFS, MKE2FS, needs_e2fsprogs, pkg_cases

pytestmark = needs_e2fsprogs
E2FSCK = shutil.which("e2fsck") or "/usr/sbin/e2fsck"


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread"]))
def test_temporary_files_and_shm_on_the_disk(boot, tmp_path, pkg, smp):
    tree = tmp_path / "tree"
    tree.mkdir()
    img = tmp_path / "fs.img"
    subprocess.run([MKE2FS, "-q", "-F", "-t", "ext2", "-b", "1024", "-d", str(tree), str(img), "16M"],
                   check=True, capture_output=True)
    r = boot(f"run=tmpshm,pkg={pkg}", smp=smp, timeout=180, disk=img)
    res = result(r, "tmpshm")
    assert res["failures"] == 0 and res["checks"] > 20000, r.tail()
    done(r)
    p = subprocess.run([E2FSCK, "-fn", str(img)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    out = tmp_path / "out"
    out.mkdir()
    subprocess.run([DEBUGFS, "-R", f"rdump / {out}", str(img)], check=True, capture_output=True)
    files = sorted(f.name for f in (out / "t").iterdir() if f.name.startswith("file"))
    assert len(files) == 200 and all((out / "t" / f).read_bytes() == b"/t/" + f.encode()
                                     for f in files)
    assert [f.name for f in (out / "tmp").iterdir()] == []      # tmpfile's name went at fclose
    assert [f.name for f in (out / "dev" / "shm").iterdir()] == []


def test_without_a_disk_each_fails_with_its_error(boot):
    r = boot("noramdisk run=tmpshm,nodisk", timeout=60)   # (else the RAM disk: test_ramdisk.py)
    res = result(r, "tmpshm")
    assert res["failures"] == 0 and res["checks"] == 4, r.tail()
    done(r)
