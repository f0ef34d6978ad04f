"""The shell (progs/bin/sh) and what runs it (progs/posix/shx.c):
system, popen both ways and pclose with their statuses, sh -c by exec,
posix_spawnp of echo along PATH, a script without "#!" (run by the
shell, and by execvp through /bin/sh as glibc does), a "#!" script by
execl (ulib/libc/script.c), a file without an x bit (126), a missing
command (127), a shell killed by a signal, and the language: quotes,
parameters and their ${...} forms, arithmetic, command substitution,
pipelines, lists, if/while/for, break and continue, redirections,
background and wait, printf, syntax errors (status 2). Each expectation
is what Debian's /bin/sh (dash) gives. /bin/sh, /bin/echo, /bin/cat are
the boot modules (kernel/binpath.c) without a disk, and with a disk that
lacks them. Before, popen and system split the command at blanks and
spawned its first word (system("exit 3") was 127), and an exec'd
program that read a pipe it inherited without calling pipe() itself
(cat in a pipeline) jumped to address 0 (ulib/libc/fd.c's weak pipe
calls)."""
import pytest
from helpers import passed, program_image, self_test, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_shell_and_the_calls_that_run_it(boot, pkg, smp):
    self_test(boot, "shx", pkg, smp, at_least=44)


@pytest.mark.parametrize("pkg,smp", [("fifo", 2), ("kthread", 1)])
def test_shell_from_the_modules_beside_a_disk(boot, tmp_path, pkg, smp):
    img = program_image(tmp_path, "shx", {"tmp/.keep": b""})
    r = boot(f"run=shx,pkg={pkg}", smp=smp, disk=img)
    passed(r, "shx", 44)
