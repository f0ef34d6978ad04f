/*
 * The shell and the C library's calls that run it (progs/bin/sh,
 * ulib/libc/popen.c, script.c; kernel/binpath.c's /bin from the boot
 * modules): system's and pclose's statuses, popen both ways, sh -c by
 * exec, a script without "#!" run by the shell and by execvp, a "#!"
 * script run by execl, and the shell's own language (quotes, parameters,
 * arithmetic, command substitution, pipelines, lists, loops, tests,
 * redirections, syntax errors), each against what POSIX (and Debian's
 * /bin/sh) gives.
 * @result {"name": "shx", "checks": N, "failures": F}
 */
#define CHECK_NAME "shx"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "check.h"

/* What popen(cmd, "r") reads, whole (at most 4 KiB), and its status. */
static const char *out(const char *cmd, int *status)
{
	static char buf[4096];
	FILE *f = popen(cmd, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = 0;
	int st = f ? pclose(f) : -1;
	if (status)
		*status = st;
	return buf;
}

static int same(const char *cmd, const char *want)
{
	int st;
	const char *got = out(cmd, &st);
	if (strcmp(got, want) || st != 0)
		printf("shx: %s -> \"%s\" (status %#x), want \"%s\"\n", cmd, got, st, want);
	return !strcmp(got, want) && st == 0;
}

static int exit_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	chmod(path, mode);
}

static const char *slurp(const char *path)
{
	static char buf[1024];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	return buf;
}

/* The library's calls that run a shell. */
static void library(void)
{
	struct stat sb;
	CHECK(system(0) != 0);
	CHECK(stat("/bin/sh", &sb) == 0 && S_ISREG(sb.st_mode) && access("/bin/sh", X_OK) == 0);
	CHECK(exit_of(system("exit 3")) == 3);
	CHECK(exit_of(system("true")) == 0 && exit_of(system("false")) == 1);
	CHECK(exit_of(system("no_such_command_here")) == 127);
	int s = system("kill -TERM $$");
	CHECK(WIFSIGNALED(s) && WTERMSIG(s) == SIGTERM);
	CHECK(exit_of(system("echo hi > /tmp/shx1")) == 0 && !strcmp(slurp("/tmp/shx1"), "hi\n"));
	CHECK(same("echo hello; echo world", "hello\nworld\n"));
	FILE *w = popen("cat > /tmp/shx2", "w");
	CHECK(w && fputs("abc\n", w) >= 0);
	CHECK(w && pclose(w) == 0 && !strcmp(slurp("/tmp/shx2"), "abc\n"));
	int st;
	out("exit 9", &st);
	CHECK(exit_of(st) == 9);
	pid_t p = fork();
	if (p == 0) {
		execl("/bin/sh", "sh", "-c", "exit 7", (char *)0);
		_exit(100);
	}
	CHECK(p > 0 && waitpid(p, &st, 0) == p && exit_of(st) == 7);
	char *argv[] = { "echo", "spawned", 0 };
	int fd = open("/tmp/shx3", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	CHECK(posix_spawnp(&p, "echo", &fa, 0, argv, environ) == 0);
	CHECK(waitpid(p, &st, 0) == p && exit_of(st) == 0);
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	CHECK(!strcmp(slurp("/tmp/shx3"), "spawned\n"));
}

/* Scripts: without "#!" (the shell runs it; execvp gives it to /bin/sh),
   and with it (execl: the kernel refuses it, the library runs the line). */
static void scripts(void)
{
	file("/tmp/plain.sh", "echo script $1\nexit 5\n", 0755);
	CHECK(exit_of(system("/tmp/plain.sh arg > /tmp/shx4")) == 5);
	CHECK(!strcmp(slurp("/tmp/shx4"), "script arg\n"));
	file("/tmp/bang.sh", "#!/bin/sh\necho bang $0 $1 > /tmp/shx5\nexit 4\n", 0755);
	int st;
	pid_t p = fork();
	if (p == 0) {
		execl("/tmp/bang.sh", "bang", "a", (char *)0);
		_exit(100);
	}
	CHECK(p > 0 && waitpid(p, &st, 0) == p && exit_of(st) == 4);
	CHECK(!strcmp(slurp("/tmp/shx5"), "bang /tmp/bang.sh a\n"));
	p = fork();
	if (p == 0) {
		char *v[] = { "plain.sh", "b", 0 };
		setenv("PATH", "/tmp:/bin", 1);
		execvp("plain.sh", v);
		_exit(100);
	}
	CHECK(p > 0 && waitpid(p, &st, 0) == p && exit_of(st) == 5);
	file("/tmp/noexec.sh", "echo x\n", 0644);
	CHECK(exit_of(system("/tmp/noexec.sh")) == 126);
}

/* The language. */
static void language(void)
{
	CHECK(same("A='x y'; B=\"$A z\"; echo \"$B\" $((2+3*4)) ${C:-def} $#", "x y z 14 def 0\n"));
	CHECK(same("echo $(echo inner) `echo bq` \"$(echo 'a   b')\"", "inner bq a   b\n"));
	CHECK(same("for i in 1 2 3; do echo $i; done | while read x; do s=$((s+x)); echo $s; done",
		   "1\n3\n6\n"));
	CHECK(same("if false; then echo no; elif test 2 -gt 1; then echo yes; else echo no; fi", "yes\n"));
	CHECK(same("false || echo or; true && echo and; ! false && echo not", "or\nand\nnot\n"));
	CHECK(same("i=0; while [ $i -lt 5 ]; do i=$((i+1)); [ $i = 2 ] && continue; [ $i = 4 ] && break; echo $i; done",
		   "1\n3\n"));
	CHECK(same("x=abc.tar.gz; echo ${x%.*} ${x%%.*} ${x#*.} ${#x}", "abc.tar abc tar.gz 10\n"));
	CHECK(same("set -- a 'b c' d; echo $#; for a in \"$@\"; do echo \"<$a>\"; done; shift; echo $1",
		   "3\n<a>\n<b c>\n<d>\nb c\n"));
	CHECK(same("echo 'single $x' \"dq \\$x \\\\\" back\\ slash", "single $x dq $x \\ back slash\n"));
	CHECK(same("no_cmd 2>&1 | cat >/dev/null; no_cmd 2>/dev/null; echo $?", "127\n"));
	CHECK(strstr(out("no_cmd 2>&1", 0), "no_cmd: not found\n") != 0);
	CHECK(same("echo a >/tmp/shx6; echo b >>/tmp/shx6; cat </tmp/shx6; (echo sub; exit 3); echo $?",
		   "a\nb\nsub\n3\n"));
	CHECK(same("{ echo one; echo two; } | cat; echo ${UNSET-dash} ${UNSET:+plus}", "one\ntwo\ndash\n"));
	CHECK(same("printf '%s=%d;%5s|%-3x|\\n' n 42 r 255", "n=42;    r|ff |\n"));
	CHECK(same("sleep 0 & wait; echo waited", "waited\n"));
	int st;
	out("if true; then", &st);
	CHECK(exit_of(st) == 2);
	out("echo 'open", &st);
	CHECK(exit_of(st) == 2);
	out("echo $((1/0))", &st);
	CHECK(exit_of(st) != 0);
	out("cat /no/such/file", &st);
	CHECK(exit_of(st) == 1);
	out("exec 3>&-; echo x >&9", &st);
	CHECK(exit_of(st) != 0);
}

int main(void)
{
	library();
	scripts();
	language();
	printf("@result {\"name\": \"shx\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
