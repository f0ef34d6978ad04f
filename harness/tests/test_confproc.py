"""A conformance sweep of processes and files (progs/posix/confproc/):
small assertions against the return values and errno glibc on Linux
gives, for fork (pid, parent, copy-on-write both ways, only the calling
thread, a mutex held by another thread, atfork order, shared offsets),
wait/waitpid/waitid (WNOHANG, ECHILD, -1, 0 and -pgid, the status
macros), exit against _exit (stdio, atexit), the exec family (argv,
descriptors and FD_CLOEXEC, dispositions and mask, the errors),
posix_spawn with file actions and attributes, process groups and
sessions, kill to pids and groups, SIGCHLD (a handler, SIG_IGN and
SA_NOCLDWAIT reaping), pipes across fork (EOF, SIGPIPE/EPIPE,
O_NONBLOCK, PIPE_BUF atomicity), dup/dup2/dup3/fcntl, open's flags and
errors, lseek and holes, round trips of 0 to 1 MiB, ftruncate, rename,
unlink of an open file, directories, stat, mkstemp/mkdtemp/tmpfile,
shm_open across a fork, <pwd.h>, sysinfo, sysconf and pathconf. One
boot per package and -smp; every check prints its own @result line, from
whichever process made it."""
import pytest
from helpers import done, needs_e2fsprogs, program_image, pkg_cases

pytestmark = needs_e2fsprogs
AT_LEAST = 375          # checks a full run makes (381 at this writing, children's included)


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_processes_and_files_conform(boot, tmp_path, pkg, smp):
    img = program_image(tmp_path, "confproc")
    r = boot(f"run=confproc,pkg={pkg},{pkg}", smp=smp, timeout=300, disk=img)
    checks = [e for e in r.events("result") if e.get("name") == "confcheck"]
    bad = [e for e in checks if not e["ok"]]
    assert not bad, "\n".join(f'{e["area"]}:{e["line"]} {e.get("what")} errno {e.get("errno")}'
                              for e in bad) + "\n" + r.tail()
    assert len(checks) >= AT_LEAST, len(checks)
    summary = [e for e in r.events("result") if e.get("name") == "confproc"]
    assert len(summary) == 1 and summary[0]["failures"] == 0, r.tail()
    done(r, 0)
