/*
 * The exec family and posix_spawn: the image /bin/confproc exec'd in
 * report mode says what it got (argv, dispositions, mask, descriptors,
 * group) on its descriptor 1, and the parent compares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include "conf.h"

#define SELF "/bin/confproc"

static char disp(int sig)
{
	struct sigaction sa;
	sigaction(sig, 0, &sa);
	return sa.sa_handler == SIG_DFL ? 'd' : sa.sa_handler == SIG_IGN ? 'i' : 'h';
}

/* argv: confproc PKG report WORDS...: one line on descriptor 1 */
int conf_report(int argc, char **argv)
{
	char line[256];
	int n = snprintf(line, sizeof line, "args");
	for (int i = 3; i < argc; i++)
		n += snprintf(line + n, sizeof line - n, ",%s", argv[i]);
	sigset_t m;
	sigprocmask(SIG_SETMASK, 0, &m);
	n += snprintf(line + n, sizeof line - n, " usr1=%c usr2=%c term=%d fd5=%d fd6=%d lead=%d\n",
		      disp(SIGUSR1), disp(SIGUSR2), sigismember(&m, SIGTERM),
		      fcntl(5, F_GETFD) != -1, fcntl(6, F_GETFD) != -1, getpgid(0) == getpid());
	write(1, line, n);
	return 0;
}

static void onusr(int s) { (void)s; }

/* fork; the child sets up the signals and descriptors the report
   shows, then runs how(); the parent reads the report */
static void run(void (*how)(void), const char *want, int status)
{
	int fds[2];
	pipe(fds);
	pid_t p = fork();
	if (p == 0) {
		signal(SIGUSR1, onusr);
		signal(SIGUSR2, SIG_IGN);
		sigset_t m;
		sigemptyset(&m);
		sigaddset(&m, SIGTERM);
		sigprocmask(SIG_BLOCK, &m, 0);
		dup2(fds[1], 1);
		close(fds[0]), close(fds[1]);
		int f = open("/", O_RDONLY | O_DIRECTORY);
		dup2(f, 5);
		dup2(f, 6);
		close(f);
		fcntl(6, F_SETFD, FD_CLOEXEC);
		how();
		_exit(99);
	}
	close(fds[1]);
	char b[256] = { 0 };
	conf_readall(fds[0], b, sizeof b - 1);
	close(fds[0]);
	K(!strcmp(b, want));
	if (strcmp(b, want))
		printf("confproc: got \"%s\" want \"%s\"\n", b, want);
	K(conf_status(p) == status);
}

static void argvs(char *v[6])
{
	static char pkg[32];
	snprintf(pkg, sizeof pkg, "pkg=%s", conf_pkg);
	v[0] = SELF, v[1] = pkg, v[2] = (char *)conf_pkg, v[3] = "report";
	v[4] = "a b", v[5] = 0;
}

static void by_execv(void) { char *v[6]; argvs(v); execv(SELF, v); }
static void by_execve(void) { char *v[6]; argvs(v); execve(SELF, v, 0); }
static void by_execvp(void) { char *v[6]; argvs(v); v[0] = "confproc"; execvp("confproc", v); }
static void by_execl(void)
{
	char *v[6];
	argvs(v);
	execl(SELF, SELF, v[1], v[2], "report", "x", "", (char *)0);
}
static void by_execlp(void)
{
	char *v[6];
	argvs(v);
	execlp("confproc", "confproc", v[1], v[2], "report", (char *)0);
}
static void by_execle(void)
{
	char *v[6];
	argvs(v);
	char *env[] = { 0 };
	execle(SELF, SELF, v[1], v[2], "report", "e", (char *)0, env);
}

static void mkfile(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	write(fd, text, strlen(text));
	close(fd);
	chmod(path, mode);
}

void conf_exec(void)
{
	conf_area = "exec";
	const char *want = "args,a b usr1=d usr2=i term=1 fd5=1 fd6=0 lead=0\n";
	run(by_execv, want, 0);
	run(by_execve, want, 0);
	run(by_execvp, want, 0);
	run(by_execl, "args,x, usr1=d usr2=i term=1 fd5=1 fd6=0 lead=0\n", 0);
	run(by_execlp, "args usr1=d usr2=i term=1 fd5=1 fd6=0 lead=0\n", 0);
	run(by_execle, "args,e usr1=d usr2=i term=1 fd5=1 fd6=0 lead=0\n", 0);

	char *v[] = { "x", 0 };
	mkfile("/conf.text", "hello\n", 0644);
	mkfile("/conf.junk", "not a program\n", 0755);
	KERR(execv("/conf.nope", v), ENOENT);
	KERR(execv("/conf.nodir/x", v), ENOENT);
	KERR(execv("/conf.text/x", v), ENOTDIR);
	KERR(execv("/conf.text", v), EACCES);
	KERR(execv("/", v), EACCES);
	KERR(execv("/conf.junk", v), ENOEXEC);
	KERR(execv("", v), ENOENT);
	KERR(execvp("conf.nope", v), ENOENT);
	unlink("/conf.text");
	unlink("/conf.junk");
}

void conf_spawn(void)
{
	conf_area = "spawn";
	int fds[2];
	pipe(fds);
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	K(posix_spawn_file_actions_init(&fa) == 0);
	K(posix_spawn_file_actions_adddup2(&fa, fds[1], 1) == 0);
	K(posix_spawn_file_actions_addclose(&fa, fds[0]) == 0);
	K(posix_spawn_file_actions_addopen(&fa, 5, "/", O_RDONLY | O_DIRECTORY, 0) == 0);
	K(posix_spawnattr_init(&at) == 0);
	sigset_t m, d;
	sigemptyset(&m);
	sigaddset(&m, SIGTERM);
	sigemptyset(&d);
	sigaddset(&d, SIGUSR2);
	K(posix_spawnattr_setsigmask(&at, &m) == 0);
	K(posix_spawnattr_setsigdefault(&at, &d) == 0);
	K(posix_spawnattr_setpgroup(&at, 0) == 0);
	K(posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
				   POSIX_SPAWN_SETPGROUP) == 0);
	short fl;
	K(posix_spawnattr_getflags(&at, &fl) == 0 && fl == (POSIX_SPAWN_SETSIGMASK |
		POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP));
	signal(SIGUSR2, SIG_IGN);
	char pkg[32];
	snprintf(pkg, sizeof pkg, "pkg=%s", conf_pkg);
	char *v[] = { SELF, pkg, (char *)conf_pkg, "report", "s", 0 };
	pid_t p = -1;
	K(posix_spawn(&p, SELF, &fa, &at, v, 0) == 0 && p > 0);
	close(fds[1]);
	char b[256] = { 0 };
	conf_readall(fds[0], b, sizeof b - 1);
	close(fds[0]);
	K(!strcmp(b, "args,s usr1=d usr2=d term=1 fd5=1 fd6=0 lead=1\n"));
	if (strcmp(b, "args,s usr1=d usr2=d term=1 fd5=1 fd6=0 lead=1\n"))
		printf("confproc: spawn got \"%s\"\n", b);
	K(conf_status(p) == 0);
	signal(SIGUSR2, SIG_DFL);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);

	/* SETPGROUP to an existing group of ours: the child joins it */
	pid_t g = fork();
	if (g == 0) {
		setpgid(0, 0);
		pause();
		_exit(0);
	}
	setpgid(g, g);
	posix_spawnattr_init(&at);
	posix_spawnattr_setpgroup(&at, g);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	char *h[] = { SELF, pkg, (char *)conf_pkg, "hold", 0 };
	int s2[2], in[2];
	pipe(s2), pipe(in);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, s2[1], 1);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	K(posix_spawn(&p, SELF, &fa, &at, h, 0) == 0);
	char c = 0;
	K(read(s2[0], &c, 1) == 1 && c == 'h' && getpgid(p) == g);
	write(in[1], "x", 1);
	K(conf_status(p) == 0);
	kill(g, SIGKILL);
	K(conf_status(g) == 128 + SIGKILL);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	close(s2[0]), close(s2[1]), close(in[0]), close(in[1]);

	/* spawnp searches; errors are returned, not in errno */
	v[0] = "confproc";
	v[3] = "nothing";
	p = -1;
	K(posix_spawnp(&p, "confproc", 0, 0, v, 0) == 0 && p > 0);
	K(conf_status(p) == 0);
	K(posix_spawn(&p, "/conf.nope", 0, 0, v, 0) == ENOENT);
	K(posix_spawnp(&p, "conf.nope", 0, 0, v, 0) == ENOENT);
	/* a file action that fails: the child ends with 127 */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 3, "/conf.nodir/x", O_RDONLY, 0);
	p = -1;
	int r = posix_spawn(&p, SELF, &fa, 0, v, 0);
	K(r == ENOENT || (r == 0 && conf_status(p) == 127));
	posix_spawn_file_actions_destroy(&fa);
}
