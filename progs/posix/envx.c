/*
 * envx: the environment and large argument lists (ulib/libc/environ.c,
 * exec.c, pathsearch.c, spawn.c; kernel/args.c), with its own file on
 * the disk as /bin/envx and the files harness/tests/test_environ.py
 * puts beside it (/d1/same: envx, /d2/same: hello, /d3/same: not
 * executable, /d4/same: not ELF, /usr/bin/onlyusr: envx).
 *   envx sem      the boot environment, then setenv, unsetenv, putenv,
 *                 clearenv and getenv by their rules (CHECKs)
 *   envx pass     the environment through fork, execve, execle, execv,
 *                 execvp, posix_spawn (its envp, a null one) and
 *                 posix_spawnp: each child runs `envx show TAG` and
 *                 reports the environment it got
 *   envx path     the PATH search of execvp and posix_spawnp: the exit
 *                 status of each case's child (envx N exits 100 + N,
 *                 hello N exits N; 200 + errno when the exec failed)
 *   envx big      argv of 100 KiB arrives intact (`envx check ...`),
 *                 the limit exactly and one byte over it, too many
 *                 words, a bad pointer in argv or envp: E2BIG and EFAULT
 *                 to a caller that goes on running
 */
#define CHECK_NAME "envx"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <animart/sys.h>
#include <check.h>

#define KADDR ((char *)0xffff800000100000UL)

static int status_of(pid_t pid)
{
	int st = -1;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

static int sem(void)
{
	struct result r;
	result_begin(&r, "envx");
	result_str(&r, "mode", "sem");
	result_array(&r, "boot_env");
	for (char **e = environ; e && *e; e++)
		result_str(&r, 0, *e);
	result_close(&r);
	CHECK(getenv("PATH") && !strcmp(getenv("PATH"), "/bin:/usr/bin"));
	CHECK(getenv("HOME") && !strcmp(getenv("HOME"), "/"));
	CHECK(!getenv("NOPE") && !getenv("") && !getenv("PATH=/bin"));
	CHECK(secure_getenv("HOME") == getenv("HOME"));
	/* setenv: overwrite or not, and names with '=' or empty */
	CHECK(setenv("A", "1", 0) == 0 && !strcmp(getenv("A"), "1"));
	CHECK(setenv("A", "2", 0) == 0 && !strcmp(getenv("A"), "1"));
	CHECK(setenv("A", "3", 1) == 0 && !strcmp(getenv("A"), "3"));
	CHECK(setenv("AB", "x", 1) == 0 && !strcmp(getenv("A"), "3") && !strcmp(getenv("AB"), "x"));
	CHECK(setenv("E", "", 1) == 0 && getenv("E") && !*getenv("E"));
	errno = 0;
	CHECK(setenv("B=C", "1", 1) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(setenv("", "1", 1) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(setenv(0, "1", 1) == -1 && errno == EINVAL);
	CHECK(!getenv("B"));
	/* unsetenv */
	CHECK(unsetenv("A") == 0 && !getenv("A") && !strcmp(getenv("AB"), "x"));
	CHECK(unsetenv("A") == 0);                   /* not set: fine */
	errno = 0;
	CHECK(unsetenv("X=Y") == -1 && errno == EINVAL);
	errno = 0;
	CHECK(unsetenv("") == -1 && errno == EINVAL);
	/* putenv puts the string itself in: changing it changes the variable */
	static char p[] = "PUT=one";
	CHECK(putenv(p) == 0 && getenv("PUT") == p + 4);
	strcpy(p + 4, "two");
	CHECK(!strcmp(getenv("PUT"), "two"));
	static char p2[] = "PUT=three";
	CHECK(putenv(p2) == 0 && getenv("PUT") == p2 + 4);
	CHECK(setenv("PUT", "four", 0) == 0 && getenv("PUT") == p2 + 4);
	errno = 0;
	CHECK(putenv("=x") == -1 && errno == EINVAL);
	static char p3[] = "PUT";                /* no '=': removes it (glibc) */
	CHECK(putenv(p3) == 0 && !getenv("PUT"));
	/* many variables: the vector grows */
	for (int i = 0; i < 300; i++) {
		char n[16], v[16];
		snprintf(n, sizeof n, "V%d", i);
		snprintf(v, sizeof v, "%d", i * 7);
		if (setenv(n, v, 1))
			CHECK(0);
	}
	int good = 0;
	for (int i = 0; i < 300; i++) {
		char n[16];
		snprintf(n, sizeof n, "V%d", i);
		good += getenv(n) && atoi(getenv(n)) == i * 7;
	}
	CHECK(good == 300);
	CHECK(!strcmp(getenv("HOME"), "/") && !strcmp(getenv("AB"), "x"));
	/* clearenv empties it; setenv starts again */
	CHECK(clearenv() == 0 && !getenv("HOME") && (!environ || !environ[0]));
	CHECK(setenv("Z", "9", 0) == 0 && !strcmp(getenv("Z"), "9") && environ[0] && !environ[1]);
	result_int(&r, "arg_max", sysconf(_SC_ARG_MAX));
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return 0;
}

/* The child's side of `pass`: its environment, in order. */
static int show(const char *tag)
{
	struct result r;
	result_begin(&r, "envx");
	result_str(&r, "mode", "show");
	result_str(&r, "tag", tag);
	result_array(&r, "env");
	for (char **e = environ; e && *e; e++)
		result_str(&r, 0, *e);
	result_close(&r);
	result_end(&r);
	return 0;
}

static pid_t fork_exec(int how, const char *tag, char *const envp[])
{
	pid_t pid = fork();
	if (pid)
		return pid;
	char *av[] = { "envx", "show", (char *)tag, 0 };
	if (how == 0)
		execve("/bin/envx", av, envp);
	else if (how == 1)
		execle("/bin/envx", "envx", "show", tag, (char *)0, envp);
	else if (how == 2)
		execv("/bin/envx", av);
	else
		execvp("envx", av);
	_exit(99);
}

static int pass(void)
{
	struct result r;
	result_begin(&r, "envx");
	result_str(&r, "mode", "pass");
	char *e1[] = { "ONE=1", "TWO=zwei", "PATH=/nowhere", 0 };
	clearenv();
	setenv("PATH", "/bin", 1);
	setenv("MINE", "parent", 1);
	result_object(&r, "status");
	result_int(&r, "execve", status_of(fork_exec(0, "execve", e1)));
	result_int(&r, "execve_null", status_of(fork_exec(0, "execve_null", 0)));
	result_int(&r, "execle", status_of(fork_exec(1, "execle", e1)));
	result_int(&r, "execv", status_of(fork_exec(2, "execv", 0)));
	result_int(&r, "execvp", status_of(fork_exec(3, "execvp", 0)));
	pid_t pid = fork();
	if (pid == 0)
		_exit(getenv("MINE") && !strcmp(getenv("MINE"), "parent") ? 5 : 6);
	result_int(&r, "fork", status_of(pid));
	char *av[] = { "envx", "show", "spawn", 0 };
	result_int(&r, "spawn", posix_spawn(&pid, "/bin/envx", 0, 0, av, e1) ? -2 : status_of(pid));
	char *av2[] = { "envx", "show", "spawn_environ", 0 };
	result_int(&r, "spawn_environ",
		   posix_spawn(&pid, "/bin/envx", 0, 0, av2, environ) ? -2 : status_of(pid));
	char *av3[] = { "envx", "show", "spawnp", 0 };
	result_int(&r, "spawnp", posix_spawnp(&pid, "envx", 0, 0, av3, e1) ? -2 : status_of(pid));
	result_close(&r);
	result_end(&r);
	return 0;
}

/* A child that sets PATH (0: unsets it), goes to dir, and execvp's
   file with argv file "N": its exit status. */
static int run_path(const char *path, const char *dir, const char *file, int n)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (path)
			setenv("PATH", path, 1);
		else
			unsetenv("PATH");
		if (dir && chdir(dir))
			_exit(250);
		char num[8];
		snprintf(num, sizeof num, "%d", n);
		char *av[] = { (char *)file, num, 0 };
		execvp(file, av);
		_exit(200 + errno);
	}
	return status_of(pid);
}

static int path(void)
{
	struct result r;
	result_begin(&r, "envx");
	result_str(&r, "mode", "path");
	result_object(&r, "status");
	result_int(&r, "d1_d2", run_path("/d1:/d2", 0, "same", 1));
	result_int(&r, "d2_d1", run_path("/d2:/d1", 0, "same", 2));
	result_int(&r, "nodir_d2", run_path("/nodir:/bin/envx:/d2", 0, "same", 3));
	result_int(&r, "eacces_then_d1", run_path("/d3:/d1", 0, "same", 4));
	result_int(&r, "eacces_only", run_path("/d3:/nodir", 0, "same", 5));
	result_int(&r, "enoent", run_path("/nodir:/d5", 0, "same", 6));
	result_int(&r, "script_first", run_path("/d4:/d1", 0, "same", 7));
	result_int(&r, "unset_bin", run_path(0, 0, "envx", 8));
	result_int(&r, "unset_usr_bin", run_path(0, 0, "onlyusr", 9));
	result_int(&r, "set_no_usr_bin", run_path("/bin", 0, "onlyusr", 10));
	result_int(&r, "slash_not_searched", run_path("/d2", "/", "d1/same", 11));
	result_int(&r, "empty_entry_is_cwd", run_path(":/d2", "/d1", "same", 12));
	result_int(&r, "empty_name", run_path("/d1", 0, "", 13));
	pid_t pid;
	char *av[] = { "same", "14", 0 };
	setenv("PATH", "/d2:/d1", 1);
	int e = posix_spawnp(&pid, "same", 0, 0, av, environ);
	result_int(&r, "spawnp_d2_d1", e ? 200 + e : status_of(pid));
	setenv("PATH", "/d3:/d1", 1);
	av[1] = "15";
	e = posix_spawnp(&pid, "same", 0, 0, av, environ);
	result_int(&r, "spawnp_eacces_then_d1", e ? 200 + e : status_of(pid));
	setenv("PATH", "/d3", 1);
	e = posix_spawnp(&pid, "same", 0, 0, av, environ);
	result_int(&r, "spawnp_eacces_only", e ? 200 + e : status_of(pid));
	result_close(&r);
	result_end(&r);
	return 0;
}

/* The words of the big argv: n words, word i of len bytes, each byte
   'a' + (i + j) % 26. */
static void fill_word(char *w, int i, int len)
{
	for (int j = 0; j < len; j++)
		w[j] = (char)('a' + (i + j) % 26);
	w[len] = 0;
}

/* `envx check N LEN word...`: the words arrived intact: exit 0, else 1. */
static int check_words(int argc, char **argv)
{
	int n = atoi(argv[2]), len = atoi(argv[3]), bad = argc != n + 4;
	char w[2048];
	for (int i = 0; i < n && !bad && len < (int)sizeof w; i++) {
		fill_word(w, i, len);
		bad |= strcmp(argv[4 + i], w) != 0;
	}
	bad |= !getenv("BIGENV") || strlen(getenv("BIGENV")) != 20000;
	return bad;
}

static char words[100][1025];

static int big(void)
{
	struct result r;
	result_begin(&r, "envx");
	result_str(&r, "mode", "big");
	result_int(&r, "arg_max", sysconf(_SC_ARG_MAX));
	/* 100 words of 1,000 bytes and a 20,000-byte variable: 122 KiB */
	static char *av[110];
	static char envv[20010];
	memset(envv, 'e', sizeof envv);
	memcpy(envv, "BIGENV=", 7);
	envv[7 + 20000] = 0;
	char *ev[] = { envv, 0 };
	av[0] = "envx", av[1] = "check", av[2] = "100", av[3] = "1000";
	for (int i = 0; i < 100; i++) {
		fill_word(words[i], i, 1000);
		av[4 + i] = words[i];
	}
	av[104] = 0;
	pid_t pid = fork();
	if (pid == 0) {
		execve("/bin/envx", av, ev);
		_exit(200 + errno);
	}
	result_int(&r, "execve_100k", status_of(pid));
	int e = posix_spawn(&pid, "/bin/envx", 0, 0, av, ev);
	result_int(&r, "spawn_100k", e ? 200 + e : status_of(pid));
	/* exactly MAX_ARGLEN (strings with NULs, 8 bytes a pointer), then one
	   byte more: argv {"envx", "x", W}, no environment */
	long room = sysconf(_SC_ARG_MAX) - (5 + 2 + 3 * 8) - 1;
	char *w = malloc(room + 2);
	memset(w, 'w', room + 1);
	w[room] = 0;
	char *edge[] = { "envx", "x", w, 0 };
	pid = fork();
	if (pid == 0) {
		execve("/bin/envx", edge, 0);
		_exit(200 + errno);
	}
	result_int(&r, "at_limit", status_of(pid));
	w[room] = 'w';
	w[room + 1] = 0;
	errno = 0;
	result_int(&r, "over_limit", execve("/bin/envx", edge, 0) == -1 ? errno : 0);
	e = posix_spawn(&pid, "/bin/envx", 0, 0, edge, 0);
	result_int(&r, "spawn_over_limit", e ? 200 + e : status_of(pid));
	/* over the limit through the environment alone */
	char *small[] = { "envx", "x", 0 }, *fat[] = { w, 0 };
	memcpy(w, "FAT=", 4);
	errno = 0;
	result_int(&r, "env_over_limit", execve("/bin/envx", small, fat) == -1 ? errno : 0);
	/* more words than fit, each a single NUL (9 bytes a word) */
	int nw = (int)(sysconf(_SC_ARG_MAX) / 9) + 2;
	char **many = malloc((nw + 1) * sizeof *many);
	for (int i = 0; i < nw; i++)
		many[i] = "";
	many[nw] = 0;
	errno = 0;
	result_int(&r, "too_many_words", execve("/bin/envx", many, 0) == -1 ? errno : 0);
	errno = 0;
	result_int(&r, "too_many_env", execve("/bin/envx", small, many) == -1 ? errno : 0);
	/* bad pointers: EFAULT, and the caller goes on */
	char *badarg[] = { "envx", (char *)8, 0 }, *badenv[] = { "A=1", KADDR, 0 };
	errno = 0;
	result_int(&r, "bad_argv_word", execve("/bin/envx", badarg, 0) == -1 ? errno : 0);
	errno = 0;
	result_int(&r, "bad_envp_word", execve("/bin/envx", small, badenv) == -1 ? errno : 0);
	char **volatile odd = (char **)16;      /* (volatile: gcc sees through a constant) */
	errno = 0;
	result_int(&r, "bad_envp", execve("/bin/envx", small, odd) == -1 ? errno : 0);
	odd = (char **)KADDR;
	errno = 0;
	result_int(&r, "kernel_envp", execve("/bin/envx", small, odd) == -1 ? errno : 0);
	result_int(&r, "spawn_bad_envp",
		   syscall6(SYS_spawn, (long)"/bin/envx", 2, (long)small, 0, 0, (long)badenv));
	result_int(&r, "spawn_unmapped_envp",
		   syscall6(SYS_spawn, (long)"/bin/envx", 2, (long)small, 0, 0, 0x7000000000L));
	e = posix_spawn(&pid, "/bin/envx", 0, 0, small, badenv);
	result_int(&r, "posix_spawn_bad_envp", e ? 200 + e : status_of(pid));
	result_int(&r, "alive", 1);
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (argc == 2 && mode[0] >= '0' && mode[0] <= '9')
		return 100 + atoi(mode);     /* (the PATH cases: which file ran) */
	if (!strcmp(mode, "sem"))
		return sem();
	if (!strcmp(mode, "pass"))
		return pass();
	if (!strcmp(mode, "show") && argc == 3)
		return show(argv[2]);
	if (!strcmp(mode, "path"))
		return path();
	if (!strcmp(mode, "check") && argc >= 4)
		return check_words(argc, argv);
	if (!strcmp(mode, "x"))
		return 0;
	if (!strcmp(mode, "big"))
		return big();
	printf("usage: envx sem|pass|path|big\n");
	return 2;
}
