"""progs/posix/faultring.c: the VP page's event ring corrupted by the
program itself while the kernel posts EV_FAULT there (kernel/upcall.c's
event_post_fault). The kernel keeps its own tail and reads the head
once: a full ring (head = tail - 16) or a head past the tail means the
fault is not posted, and the child dies by SIGSEGV with the page-fault
line, as uncaught (with the room check removed, an upcall VP's child
died "bad VP page" instead, SIGKILL, the oldest unread event overwritten;
a classic VP's ran its handler on the overwritten slot, or wedged). A
garbage tail in the page is never read: the handler runs, the child goes
on. Another thread storing random words into the head and tail while a
thread faults 300 times ends the child by SIGSEGV, SIGKILL or exit 0,
nothing else; the kernel stays up under memcheck, and hello, run after
it, ends 0. Every package, -smp 1 and 2."""
import pytest
from helpers import passed, only, pkg_cases, PKGS_DET


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET) + [pytest.param("det,det=par", 2, id="par-2")])
def test_a_corrupted_ring_refuses_the_fault(boot, pkg, smp):
    r = boot(f"run=faultring,pkg={pkg} run=hello,0 memcheck", smp=smp, timeout=180)
    passed(r, "faultring", 8)
    lines = [ln for ln in r.lines if ln.startswith("faultring: ")]
    assert sum(ln.endswith(" ok") for ln in lines) == 4, r.tail()
    assert sum(": killed: page fault at " in ln for ln in r.lines) >= 2, r.tail()
    assert only(r, "exit", prog="hello")["status"] == 0
