"""The console as a serial terminal (kernel/tty.c, ulib/libc/termios.c;
progs/posix/ttyattr.c): descriptors 0, 1, 2 are a tty named /dev/ttyS0;
tcgetattr gives a serial line at the UART's 115200 baud, 8 bits,
canonical with echo, output passed unchanged (no OPOST: what the console
does); tcsetattr keeps the settings in the kernel, so a child's are its
parent's (a speed asked for stays 115200); OPOST|OCRNL is applied to the
bytes written (a "\\r" goes out as "\\n": a line end the harness sees,
where a bare "\\r", which it drops, went out before and after); ENOTTY for
a pipe, /dev/null and a file; SYS_tty refuses a bad operation or pointer.
Before, the settings were each process's (ulib's), B38400 with OPOST
claimed, and ttyname said /dev/console."""
import pytest

from helpers import PKGS_DET, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_console_is_a_serial_tty(boot, pkg, smp):
    r = boot(f"run=ttyattr,pkg={pkg}", smp=smp, timeout=60)
    assert r.kind == "done" and r.status == 0, r.tail()
    assert "ttyattr: 32 checks, 0 failures" in r.lines, r.tail()
    i = r.lines.index("ttyattr: cr")
    assert r.lines[i + 1] == "nl", r.tail()          # OCRNL applied
    assert "ttyattr: rawcr" in r.lines, r.tail()     # and off again
