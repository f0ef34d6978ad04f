"""The libc POSIX programs see (docs/libc.md) and the build around it:
libcposix and libctest in the guest; without QEMU, that no host header can
leak in (-nostdinc), that ported code builds with its warnings while our own
stays -Werror, and that ulib's exports leave programs' own names alone."""
import re
import shlex
import subprocess

import pytest
from helpers import done, result

from harness import BUILD, ROOT


def make_var(name):
    return subprocess.run(["make", "-s", f"print-{name}"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize("smp", [1, 2])
def test_libcposix(boot, smp):
    r = boot(f"run=libcposix,-c,{smp},-v,-n3,w1,w2", smp=smp)
    done(r, 0)
    res = result(r, "libcposix")
    assert res["failures"] == 0 and res["checks"] >= 120, r.tail()
    # getopt on the real command line: -c N -v -n3, then two operands.
    assert (res["ncpu"], res["verbose"], res["n"], res["operands"]) == (smp, 1, 3, 2), res
    assert res["slept_ns"] >= 20_000_000, res            # nanosleep sleeps at least that long
    assert res["realtime_s"] > 1_577_836_800, res        # CLOCK_REALTIME: after 2020
    lines = r.lines
    for want in ["libcposix: to stderr 42", "libcposix perror: Invalid argument",
                 "libcposix: warn 7: Numerical result out of range", "libcposix: warnx",
                 "libcposix: write 1", "libcposix: write 2"]:
        assert want in lines, (want, r.tail())
    # atexit: last registered first; then exit flushes the partial line
    # the last one left, and the kernel's @exit starts a line of its own.
    i = lines.index("atexit 3")
    assert lines[i:i + 4] == ["atexit 3", "atexit 2", "atexit 1", "exit-flush-tail"], r.tail()
    assert lines[i + 4].startswith("@exit"), r.tail()


@pytest.mark.parametrize("smp", [1, 2])
def test_libcfd(boot, smp):
    """dup/dup2/dup3/fcntl(F_DUPFD) on the console's descriptors and their
    copies, /dev/null (reads EOF, writes discard, dup2 onto 1 silences
    printf), getcwd/chdir, %Zu, and <error.h>'s messages, count and exit."""
    r = boot("noramdisk run=libcfd,exit", smp=smp)      # (access("/", W_OK) is EROFS)
    done(r, 3)                                          # error(3, ...) ends it
    res = result(r, "libcfd")
    assert res["failures"] == 0 and res["checks"] >= 50, r.tail()
    lines = r.lines
    for want in ["libcfd: via dup", "libcfd: via dup2", "libcfd: stdout is back",
                 "libcfd: plain 1", "libcfd: with errno: Invalid argument",
                 "libcfd:file.c:12: at line",
                 "libcfd:file.c:13: once: Numerical result out of range",
                 "libcfd:file.c:14: next line", "libcfd: messages 5",
                 "libcfd: bye 2: No such file or directory"]:
        assert want in lines, (want, r.tail())
    text = "\n".join(lines)
    for never in ["must not appear", "discarded"]:
        assert never not in text, (never, r.tail())


def test_quick_exit(boot):
    """quick_exit runs the at_quick_exit functions, not the atexit ones."""
    r = boot("run=libcfd,quick", smp=1)
    done(r, 4)
    assert "libcfd: at_quick_exit" in r.lines, r.tail()
    assert not any("must not appear" in l for l in r.lines), r.tail()


def test_libctest(boot):
    r = boot("run=libctest")
    done(r, 0)
    res = result(r, "libctest")
    assert res["failures"] == 0 and res["checks"] > 100, r.tail()


def test_ported_folder_program(boot):
    # progs/ported/wordfreq/: two .c files, a local header, flags.mk.
    r = boot("run=wordfreq,-t,2", smp=1)
    done(r, 0)
    assert "wordfreq: 22 words, 13 distinct" in r.lines, r.tail()
    assert [l for l in r.lines if l.startswith("top ")] == ["top 1: the 5", "top 2: dog 3"]
    r = boot("run=wordfreq,-V", smp=1)
    done(r, 0)
    assert "wordfreq 1.2" in r.lines, r.tail()       # -DWF_VERSION from its flags.mk


def test_no_host_header_leaks(built, tmp_path):
    flags = shlex.split(make_var("UCFLAGS"))
    src = tmp_path / "net.c"
    src.write_text("#include <sys/socket.h>\nint main(void) { return 0; }\n")
    p = subprocess.run(["gcc", *flags, "-c", str(src), "-o", str(tmp_path / "net.o")],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode != 0 and "sys/socket.h: No such file" in p.stderr, p.stderr
    # Every header a POSIX program includes: ours, or the compiler's own.
    p = subprocess.run(["gcc", *flags, "-M", "-MF", "/dev/stdout", "-MT", "x",
                        "progs/posix/libcposix.c"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    deps = p.stdout.replace("\\\n", " ").split()[1:]
    assert not [d for d in deps if d.startswith("/usr/include")], deps
    gccinc = make_var("GCCINC")
    assert "ulib/include/stdint.h" in deps, deps       # GCC's types, hosted or not
    assert any(d.startswith(gccinc) and d.endswith("/stdint-gcc.h") for d in deps), deps
    assert "ulib/include/stdio.h" in deps and "ulib/include/math.h" in deps, deps


def compile_cmd(obj):
    """The Makefile's command for one object (make -n -B: printed, not run)."""
    out = subprocess.run(["make", "-n", "-B", obj], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if l.startswith("gcc ") and f"-o {obj}" in l][-1]


def test_ported_warnings_are_not_fatal(built, tmp_path):
    cmd = compile_cmd("build/u/progs/ported/wordfreq/main.c.o")
    assert "-Wno-error" in cmd and "-DTABLE_SIZE=64" in cmd, cmd
    argv = shlex.split(cmd)
    argv[argv.index("-o") + 1] = str(tmp_path / "main.o")
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0 and "unused variable" in p.stderr, p.stderr
    # The same file as one of our own (progs/posix: -Werror) does not build.
    strict = [a for a in argv if a != "-Wno-error"]
    p = subprocess.run(strict, cwd=ROOT, capture_output=True, text=True)
    assert p.returncode != 0 and "unused variable" in p.stderr, p.stderr
    assert "-Wno-error" not in compile_cmd("build/u/progs/posix/libcposix.c.o")


def test_program_headers_named_like_animas(boot, tmp_path):
    # progs/ported/ownhdrs/ has its own clock.h, thread.h and sync.h on its
    # include path (flags.mk -I). Anima's runtime headers of those names
    # came first there (ulib/include), so it did not compile; now they are
    # <animart/...> and the top of the path holds standard headers only.
    argv = shlex.split(compile_cmd("build/u/progs/ported/ownhdrs/main.c.o"))
    argv[argv.index("-o") + 1] = str(tmp_path / "main.o")
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    std = {f.name for f in (ROOT / "ulib" / "include").glob("*.h")}
    assert not std & {"clock.h", "thread.h", "sync.h", "spin.h", "sys.h", "vprt.h"}, std
    r = boot("run=ownhdrs", smp=1)
    done(r, 0)
    assert result(r, "ownhdrs") == {"name": "ownhdrs", "h": 0, "m": 15, "done": 5, "sum": 20}


def test_ported_main_returns_0(built, tmp_path):
    # Ported code is compiled hosted (-fhosted): a main that ends without a
    # return returns 0, as C99 says. Freestanding, GCC warned and main
    # returned what %eax held (pminkov/threadpool exited 5: printf's count).
    argv = shlex.split(compile_cmd("build/u/progs/ported/wordfreq/main.c.o"))
    assert "-fhosted" in argv, argv
    src = tmp_path / "m.c"
    src.write_text('#include <stdint.h>\n#include <stdio.h>\n'
                   'int main(void) { uint8_t x = 1; printf("%d\\n", x); }\n')
    argv[argv.index("-c") + 1] = str(src)
    argv[argv.index("-o") + 1] = str(tmp_path / "m.o")
    p = subprocess.run(argv + ["-Werror=return-type"], cwd=ROOT, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr       # freestanding: "control reaches end"


# Names a program may well define for itself. ulib must not export them as
# its own (non-standard) globals, and where it provides a common extension
# (strdup, strlcpy, rand_r, ...) the program's definition must win.
GENERIC = ["flush", "fmt", "min", "max", "result", "malloc_stats", "debug", "panic",
           "die", "error", "log_msg", "now", "verbose"]

PROG = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
int flush, min, max, result, verbose, debug;
long times;                       /* ulib's times() is in a file of its own */
int fmt(int x) { return x + 1; }
int error(int code) { return code; }
void die(const char *m) { fprintf(stderr, "%s\n", m); exit(1); }
char *strdup(const char *s) { (void)s; return 0; }
size_t strlcpy(char *d, const char *s, size_t n) { (void)d; (void)s; return n; }
int rand_r(unsigned *s) { return (int)++*s; }
int strcasecmp(const char *a, const char *b) { return a == b; }
int main(int argc, char **argv)
{
	char buf[32], *save;
	snprintf(buf, sizeof buf, "%d %g", fmt(argc), sqrt(2.0));
	unsigned seed = 0;
	printf("%s %d %s %d\n", buf, rand_r(&seed), strtok_r(argv[0], "/", &save), rand());
	times = (long)clock();           /* time.c: the clocks */
	return strdup("x") == 0 && strcasecmp("a", "a") == 0 && error(0) == 0 ? 0 : 1;
}
"""


def test_programs_own_names_link(built, tmp_path):
    syms = subprocess.run(["nm", "-g", "--defined-only",
                           *(str(BUILD / a) for a in ("librt.a", "libpthread.a", "libc.a"))],
                          capture_output=True, text=True, check=True).stdout
    # Strong definitions only: a weak one (glibc's `error`, <error.h>) gives
    # way to the program's, which the link below checks.
    exported = {l.split()[-1] for l in syms.splitlines()
                if re.match(r"^[0-9a-f]+ [A-UX-Z] ", l)}
    assert not exported & set(GENERIC), exported & set(GENERIC)
    src = tmp_path / "own.c"
    src.write_text(PROG)
    flags = shlex.split(make_var("UCFLAGS"))
    flags = [f for f in flags if f not in ("-Werror",)]
    subprocess.run(["gcc", *flags, "-c", str(src), "-o", str(tmp_path / "own.o")],
                   cwd=ROOT, check=True, capture_output=True, text=True)
    libs = shlex.split(make_var("ULIBS"))
    p = subprocess.run(["ld", "-nostdlib", "-static", "-T", "ulib/user.ld", "-o",
                        str(tmp_path / "own"), "build/u/ulib/libc/crt0.S.o", str(tmp_path / "own.o"),
                        "build/u/ulib/pthread/pstart.c.o", *libs],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
