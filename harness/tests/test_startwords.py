"""pkg=, vps=, det= and detspin= choose a POSIX program's package only
while they lead its arguments (ulib/pthread/pstart.c); later they are
arguments like any other (/bin/echo pkg=x prints it). So the harness
refuses a boot command line whose run= of a POSIX program has one after
the program's own arguments: such a test ran fifo, whatever it named
(test_mallocoom's det, prio, ... cases all did). Native programs, which
may pass the words on to a program they exec, are not checked."""
import pytest
from harness.iso import check_cmdline


@pytest.mark.parametrize("cmdline", [
    "run=ptest,sched,pkg=prio", "memcheck run=mallocoom,thread,pkg=det",
    "run=stopstorm:2,3,vps=2", "run=racey,pkg=det,8,det=par", "run=echo,a,pkg=x"])
def test_a_late_package_word_is_refused(cmdline):
    with pytest.raises(ValueError, match="put it first"):
        check_cmdline(cmdline)


@pytest.mark.parametrize("cmdline", [
    "run=ptest,pkg=prio,sched", "run=racey,pkg=det,det=par,vps=2,8",
    "run=exectest,one,/bin/execp,pkg=fifo,vps=2,before",   # native: passes them on
    "run=conformance,fifo,vps=4", "run=ptest run=mallocoom,pkg=det,thread"])
def test_leading_package_words_and_native_programs_pass(cmdline):
    check_cmdline(cmdline)


def test_a_boot_with_a_late_package_word_never_starts(boot):
    with pytest.raises(ValueError, match="pkg=prio"):
        boot("run=stopstorm,1,10,10,pkg=prio", timeout=30)
