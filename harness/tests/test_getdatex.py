"""getdate and getdate_r (<time.h>, ulib/libc/getdate.c, progs/posix/
getdatex.c): the error numbers without $DATEMSK, with it naming no file
and a directory; a template file's full date, a date alone (now's time of
day), a month and year (its first day), a weekday alone (its next day), a
time alone (today or tomorrow), trailing spaces, text no template takes.
Before, ulib had no getdate (the Open POSIX suite's time_h 19-1 did not
build). Library code; run on every package at one and two CPUs."""
import pytest
from helpers import PKGS_DET, pkg_cases, self_test


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_getdate(boot, pkg, smp):
    self_test(boot, "getdatex", pkg, smp, at_least=18, checks=18)
