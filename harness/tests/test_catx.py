"""Message catalogs, <nl_types.h> (ulib/libc/catgets.c, progs/posix/catx.c):
catopen by path and by NLSPATH's templates with LANG's locale, catgets of
catalogs in glibc's gencat format (written by the program in both byte
orders, and one made by the host's gencat), the default string with
ENOMSG for a missing message, a fork's child reading its parent's open
catalog (the Open POSIX suite's fork 7-1), catclose; without a catalog
catopen fails with ENOENT and catgets gives the default, as glibc's.
Before, there was no <nl_types.h> (fork 7-1 did not build). Library code,
but the fork runs on every package at one and two CPUs."""
import shutil
import subprocess

import pytest
from helpers import PKGS_DET, pkg_cases, self_test, done, result, program_image, needs_e2fsprogs


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_catalogs(boot, pkg, smp):
    self_test(boot, "catx", pkg, smp, at_least=26)


@needs_e2fsprogs
@pytest.mark.skipif(not shutil.which("gencat"), reason="no gencat on the host")
def test_a_catalog_gencat_made(boot, tmp_path):
    src = tmp_path / "src.txt"
    src.write_text("".join(f"$set {s}\n" + "".join(f"{m} gencat {s} {m}\n" for m in (1, 2, 3))
                           for s in (1, 2, 3)))
    subprocess.run(["gencat", str(tmp_path / "gencat.cat"), str(src)], check=True)
    img = program_image(tmp_path, "catx", {"gencat.cat": (tmp_path / "gencat.cat").read_bytes()})
    r = boot("run=catx,pkg=fifo,gencat", smp=1, timeout=120, disk=img)
    res = result(r, "catx")
    assert res["checks"] == 11 and res["failures"] == 0, r.tail()
    done(r, 0)
