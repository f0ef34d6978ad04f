"""progs/posix/langinfo: <langinfo.h>'s nl_langinfo and nl_langinfo_l give
every item POSIX lists exactly as glibc 2.36 does in the C locale
(measured on the host with LC_ALL=C: CODESET "ANSI_X3.4-1968", ERA and
its kin and THOUSEP ""), an unknown item "", and strftime/strptime use
the same strings (docs/libc.md). Without the header the program does not
build. Package-independent (no threads): fifo at -smp 1, kthread at 2."""
import pytest
from helpers import passed

# glibc 2.36, LC_ALL=C, nl_langinfo(ITEM) for each item (host program).
GLIBC_C = {
    "CODESET": "ANSI_X3.4-1968", "D_T_FMT": "%a %b %e %H:%M:%S %Y", "D_FMT": "%m/%d/%y",
    "T_FMT": "%H:%M:%S", "T_FMT_AMPM": "%I:%M:%S %p", "AM_STR": "AM", "PM_STR": "PM",
    **{f"DAY_{i + 1}": d for i, d in enumerate(
        "Sunday Monday Tuesday Wednesday Thursday Friday Saturday".split())},
    **{f"ABDAY_{i + 1}": d for i, d in enumerate("Sun Mon Tue Wed Thu Fri Sat".split())},
    **{f"MON_{i + 1}": m for i, m in enumerate(
        "January February March April May June July August September October November "
        "December".split())},
    **{f"ABMON_{i + 1}": m for i, m in enumerate(
        "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())},
    "ERA": "", "ERA_D_FMT": "", "ALT_DIGITS": "", "ERA_D_T_FMT": "", "ERA_T_FMT": "",
    "RADIXCHAR": ".", "THOUSEP": "", "YESEXPR": "^[yY]", "NOEXPR": "^[nN]", "CRNCYSTR": "-",
}


@pytest.mark.parametrize("pkg,smp", [("fifo", 1), ("kthread", 2)])
def test_langinfo(boot, pkg, smp):
    r = boot(f"run=langinfo,pkg={pkg}", smp=smp, timeout=120)
    passed(r, "langinfo", 3000)
    got = {}
    for line in r.lines:
        if line.startswith("item "):
            name, _, value = line[5:].partition(" ")
            got[name] = value[1:-1]
    assert got == GLIBC_C, r.tail()
    assert len(got) == 55
