/*
 * kpipe: pipes between processes (kernel/pipe.c, ulib/libc/pipe.c;
 * harness/tests/test_kpipe.py). The disk holds /bin/kpipe (this program)
 * for the exec cases. The body runs in a child of its own, so that
 * INFO_MEM_AVAIL, read before it and after it ended, shows every pipe,
 * open file and child came back ("avail_lost").
 *   down      parent -> child: 200,000 bytes (three times the capacity)
 *             through a pipe made before the fork, checked in the child
 *   up        child -> parent, then the end of file once the child ended
 *   chain     a pipeline of 3 processes: numbers, doubled, summed
 *   ends      EOF with no writer left in any process; EPIPE with no
 *             reader (SIGPIPE ignored), and SIGPIPE's default action
 *             ending a child that writes to a pipe nobody reads
 *   thread    a child's thread waits in the kernel for a read (the pipe is
 *             shared) while its other thread goes on and answers
 *   intr      such a kernel wait ended by a handler (EINTR, no
 *             SA_RESTART) and by pthread_cancel
 *   exec      a child execs /bin/kpipe `upper` with its stdin and stdout
 *             pipes: it reads the stdin pipe to its end, writes upper case
 *   spawn     posix_spawn with adddup2 of a pipe onto the child's stdout:
 *             the parent reads what it printed; /dev/null dup2'd onto the
 *             child's 1 stays /dev/null across the exec (`null`)
 *   popen     popen "r" of /bin/kpipe hello, "w" of kpipe count (by /bin/sh, found in
 *             /bin; its exit status is the bytes it read), pclose's
 *             status; system's exit status, 127 for a missing program
 * `kpipe pingpong N [threads]` (a figure, not a test): N one-byte round
 * trips between two threads of this program through two pipes, then
 * (without `threads`) N between this process and a forked child; ns per
 * round trip of each (under
 * --icount a count of guest instructions, the same on every host).
 */
#define CHECK_NAME "kpipe"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <spawn.h>
#include <animart/pkg.h>
#include <animalib/result.h>
#include <avail.h>
#include <check.h>
#include <forkaudit.h>
#include <sigcatch.h>

extern const struct pkg *posix_pkg;     /* (ulib/pthread/pstart.c) */
static char pkg[32];                     /* pkg=NAME, for the programs we exec */

static size_t read_all(int fd, char *buf, size_t n)
{
	size_t got = 0;
	for (ssize_t r; got < n && (r = read(fd, buf + got, n - got)) > 0;)
		got += (size_t)r;
	return got;
}

static unsigned char pat(size_t i)
{
	return (unsigned char)(i * 7 + i / 251);
}

#define DOWN 200000

/* A new pipe p and a child: the child keeps only its end `mine` (0 the
   read end), the parent the other. The child's pid; 0 in the child. */
static pid_t pipe_child(int p[2], int mine)
{
	CHECK(pipe(p) == 0);
	pid_t c = fork();
	close(p[c == 0 ? !mine : mine]);
	return c;
}

static void down(void)
{
	int p[2];
	pid_t c = pipe_child(p, 0);
	if (c == 0) {
		static char b[4096];
		size_t got = 0, bad = 0;
		for (ssize_t r; (r = read(p[0], b, sizeof b)) > 0; got += (size_t)r)
			for (ssize_t i = 0; i < r; i++)
				bad += (unsigned char)b[i] != pat(got + (size_t)i);
		_exit(got == DOWN && bad == 0 ? 0 : 1);
	}
	static char b[DOWN];
	for (size_t i = 0; i < DOWN; i++)
		b[i] = (char)pat(i);
	CHECK(write(p[1], b, DOWN) == DOWN);
	CHECK(close(p[1]) == 0);
	CHECK(fork_status(c) == 0);
}

static void up(void)
{
	int p[2];
	pid_t c = pipe_child(p, 1);
	if (c == 0) {
		usleep(10000);               /* the parent waits in the kernel meanwhile */
		_exit(write(p[1], "from the child", 14) == 14 ? 0 : 1);
	}
	char b[32] = { 0 };
	CHECK(read_all(p[0], b, sizeof b) == 14 && !strcmp(b, "from the child"));
	CHECK(read(p[0], b, 1) == 0);    /* the end of file: the child's end went with it */
	CHECK(fork_status(c) == 0);
	CHECK(close(p[0]) == 0);
}

/* A pipeline stage: lines in from `in`, out to `out` (stdio over them). */
static void stage(int in, int out, int how)
{
	FILE *fi = in >= 0 ? fdopen(in, "r") : 0, *fo = fdopen(out, "w");
	long sum = 0;
	char line[32];
	if (how == 0)
		for (int i = 1; i <= 1000; i++)
			fprintf(fo, "%d\n", i);
	else
		while (fgets(line, sizeof line, fi)) {
			if (how == 1)
				fprintf(fo, "%ld\n", 2 * atol(line));
			else
				sum += atol(line);
		}
	if (how == 2)
		fprintf(fo, "%ld\n", sum);
	fclose(fo);
	_exit(0);
}

static void chain(void)
{
	int a[2], b[2], c[2];
	CHECK(pipe(a) == 0 && pipe(b) == 0 && pipe(c) == 0);
	pid_t k[3];
	for (int i = 0; i < 3; i++)
		if ((k[i] = fork()) == 0) {
			int in = i == 0 ? -1 : i == 1 ? a[0] : b[0], out = i == 0 ? a[1] : i == 1 ? b[1] : c[1];
			int all[6] = { a[0], a[1], b[0], b[1], c[0], c[1] };
			for (int j = 0; j < 6; j++)
				if (all[j] != in && all[j] != out)
					close(all[j]);
			stage(in, out, i);
		}
	close(a[0]), close(a[1]), close(b[0]), close(b[1]), close(c[1]);
	char buf[32] = { 0 };
	CHECK(read_all(c[0], buf, sizeof buf - 1) > 0 && atol(buf) == 1000 * 1001);
	close(c[0]);
	for (int i = 0; i < 3; i++)
		CHECK(fork_status(k[i]) == 0);
}

static void ends(void)
{
	int p[2];
	char b[4];
	/* EOF: the child's copy of the write end and ours both closed */
	pid_t c = pipe_child(p, 1);
	if (c == 0)
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	CHECK(read(p[0], b, 4) == 1 && read(p[0], b, 4) == 0);
	CHECK(fork_status(c) == 0);
	close(p[0]);
	/* EPIPE: the only reader, in a child, gone */
	if ((c = pipe_child(p, 0)) == 0)
		_exit(0);
	CHECK(fork_status(c) == 0);
	signal(SIGPIPE, SIG_IGN);
	CHECK(write(p[1], "x", 1) == -1 && errno == EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
	/* SIGPIPE's default: a writing child ends; a full pipe's writer too,
	   once the reader (the parent) closes its end */
	if ((c = pipe_child(p, 1)) == 0) {
		static char big[100000];
		write(p[1], big, sizeof big);    /* waits on the full pipe */
		_exit(0);
	}
	usleep(20000);
	close(p[0]);
	CHECK(fork_status(c) == 128 + SIGPIPE);
}

static volatile int alive, usr1;
static void on_usr1(int s)
{
	(void)s;
	usr1++;
}

static void *reader(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char b[8];
	__atomic_store_n(&alive, 1, __ATOMIC_RELEASE);
	ssize_t r = read(fd, b, sizeof b);
	return (void *)(r < 0 ? -(intptr_t)errno : r);
}

/* A reader thread on fd, running, and `us` microseconds later (in the
   kernel by then, fd being shared): 0, or -1 */
static int start_reader(pthread_t *t, int fd, unsigned us)
{
	alive = 0;
	if (pthread_create(t, 0, reader, (void *)(intptr_t)fd))
		return -1;
	while (!__atomic_load_n(&alive, __ATOMIC_ACQUIRE))
		sched_yield();
	usleep(us);
	return 0;
}

/* Pipes p (to the child) and q (from it), and a child that exits with
   fn(p[0], q[1]); the parent keeps p[1] and q[0]. The child's pid. */
static pid_t talk_child(int p[2], int q[2], int (*fn)(int, int))
{
	CHECK(pipe(p) == 0 && pipe(q) == 0);
	pid_t c = fork();
	if (c == 0) {
		close(p[1]), close(q[0]);
		_exit(fn(p[0], q[1]));
	}
	close(p[0]), close(q[1]);
	return c;
}

/* in a child: a thread waits in read on `fd` (the parent holds the write
   end); the main thread answers on `ans` meanwhile, then waits for it */
static int thread_child(int fd, int ans)
{
	pthread_t t;
	void *r;
	if (start_reader(&t, fd, 10000))
		return 2;
	if (write(ans, "!", 1) != 1 || pthread_join(t, &r))
		return 3;
	return r == (void *)5L ? 0 : 4;
}

static void thread(void)
{
	int p[2], q[2];
	pid_t c = talk_child(p, q, thread_child);
	char b[2];
	CHECK(read(q[0], b, 1) == 1);    /* the child's other thread ran */
	CHECK(write(p[1], "hello", 5) == 5);
	CHECK(fork_status(c) == 0);
	close(p[1]), close(q[0]);
}

/* in a child: a reader waiting in the kernel gets a SIGUSR1 whose handler
   has no SA_RESTART (EINTR), then another is cancelled; then it asks the
   parent (on `ask`) for 2 bytes */
static int intr_child(int fd, int ask)
{
	sig_catch(SIGUSR1, on_usr1, 0);
	pthread_t t;
	void *r;
	if (start_reader(&t, fd, 20000))
		return 2;
	pthread_kill(t, SIGUSR1);
	if (pthread_join(t, &r) || r != (void *)(intptr_t)-EINTR || usr1 != 1)
		return 3;
	if (start_reader(&t, fd, 20000))
		return 4;
	pthread_cancel(t);
	if (pthread_join(t, &r) || r != PTHREAD_CANCELED)
		return 5;
	char b[4];
	if (write(ask, "?", 1) != 1)
		return 6;
	return read(fd, b, 4) == 2 ? 0 : 7;     /* the pipe still works */
}

static void intr(void)
{
	int p[2], q[2];
	char b[2];
	pid_t c = talk_child(p, q, intr_child);
	CHECK(read(q[0], b, 1) == 1);
	CHECK(write(p[1], "ok", 2) == 2);
	close(q[0]);
	int st = fork_status(c);
	if (st)
		printf("kpipe: intr: the child ended with %d\n", st);
	CHECK(st == 0);
	close(p[1]);
}

/* exec /bin/kpipe upper with stdin from one pipe and stdout to another */
static void exec_upper(void)
{
	int in[2], out[2];
	CHECK(pipe(in) == 0 && pipe(out) == 0);
	pid_t c = fork();
	if (c == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		char *argv[] = { "kpipe", pkg, "upper", 0 };
		execv("/bin/kpipe", argv);
		_exit(9);
	}
	close(in[0]), close(out[1]);
	static char text[20000], got[20001];
	for (size_t i = 0; i < sizeof text; i++)
		text[i] = "abcdefghij\n"[i % 11];
	CHECK(write(in[1], text, sizeof text) == sizeof text);
	close(in[1]);
	size_t n = read_all(out[0], got, sizeof got);
	int ok = n == sizeof text;
	for (size_t i = 0; ok && i < n; i++)
		ok = got[i] == toupper((unsigned char)text[i]);
	CHECK(ok);
	close(out[0]);
	CHECK(fork_status(c) == 0);
}

/* posix_spawn /bin/kpipe ARG with a pipe dup2'd onto its stdout: what
   it printed, and its exit status */
static int spawned(const char *arg, char *buf, size_t n, int null)
{
	int p[2], st = -1, dn = null ? open("/dev/null", O_WRONLY) : -1;
	pid_t c = 0;
	if (pipe(p))
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, null ? dn : p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	char *argv[] = { "kpipe", pkg, (char *)arg, 0 };
	int e = posix_spawn(&c, "/bin/kpipe", &fa, 0, argv, 0);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (dn >= 0)
		close(dn);
	memset(buf, 0, n);
	read_all(p[0], buf, n - 1);
	close(p[0]);
	if (e || waitpid(c, &st, 0) != c)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void spawn(void)
{
	char b[64];
	CHECK(spawned("hello", b, sizeof b, 0) == 0 && !strcmp(b, "hello from a child\n"));
	CHECK(spawned("null", b, sizeof b, 1) == 0 && b[0] == 0);
}

/* popen both ways, pclose's status, system's */
static void popens(void)
{
	char cmd[64], b[64] = { 0 };
	snprintf(cmd, sizeof cmd, "/bin/kpipe %s hello", pkg);
	FILE *f = popen(cmd, "r");
	CHECK(f && fgets(b, sizeof b, f) && !strcmp(b, "hello from a child\n"));
	CHECK(f && pclose(f) == 0);
	snprintf(cmd, sizeof cmd, "kpipe %s count", pkg);     /* (found in /bin) */
	CHECK((f = popen(cmd, "w")) != 0);
	for (int i = 0; f && i < 100; i++)
		fputc('x', f);
	int st = f ? pclose(f) : -1;
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 100);
	snprintf(cmd, sizeof cmd, "/bin/kpipe %s  exit7", pkg);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	CHECK(WEXITSTATUS(system("/bin/no-such-program")) == 127 && system(0) != 0);
	CHECK(pclose(stdout) == -1 && errno == ECHILD);
}

static int body(void)
{
	down();
	up();
	chain();
	ends();
	thread();
	intr();
	exec_upper();
	spawn();
	popens();
	return failures;
}

/* The exec'd program's modes. */
static int mode(const char *m)
{
	if (!strcmp(m, "upper")) {           /* stdin to stdout, upper case */
		char b[1000];
		for (ssize_t r; (r = read(0, b, sizeof b)) > 0;) {
			for (ssize_t i = 0; i < r; i++)
				b[i] = (char)toupper((unsigned char)b[i]);
			if (write(1, b, (size_t)r) != r)
				return 1;
		}
		return 0;
	}
	if (!strcmp(m, "count")) {           /* bytes on stdin: the exit status */
		char b[256];
		size_t n = 0;
		for (ssize_t r; (r = read(0, b, sizeof b)) > 0;)
			n += (size_t)r;
		return (int)(n & 255);
	}
	if (!strcmp(m, "exit7"))
		return 7;
	if (!strcmp(m, "hello")) {           /* printf to a pipe */
		printf("hello from a child\n");
		return 0;
	}
	if (!strcmp(m, "null")) {            /* 1 is /dev/null, 0 and 2 the console */
		struct stat st;
		int ok = fstat(1, &st) == 0 && S_ISCHR(st.st_mode) && (st.st_mode & 0777) == 0666 &&
			 !isatty(1) && isatty(0) && isatty(2) && write(1, "lost", 4) == 4;
		return ok ? 0 : 1;
	}
	return 2;
}

/* ---- pingpong ---- */

static int pp_n;

static void pp_serve(int in, int out)
{
	char c;
	for (int i = 0; i < pp_n && read(in, &c, 1) == 1; i++)
		write(out, &c, 1);
}

static void *pp_thread(void *arg)
{
	int *fd = arg;
	pp_serve(fd[0], fd[1]);
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* n round trips through to -> (the other side) -> from: ns each */
static long long pp_run(int to, int from)
{
	char c = 'x';
	long long t0 = now_ns();
	for (int i = 0; i < pp_n; i++)
		if (write(to, &c, 1) != 1 || read(from, &c, 1) != 1)
			return -1;
	return (now_ns() - t0) / pp_n;
}

static int pingpong(int n, int procs_too)
{
	int a[2], b[2], srv[2];
	pp_n = n;
	if (pipe(a) || pipe(b))
		return 1;
	srv[0] = a[0], srv[1] = b[1];
	pthread_t t;
	pthread_create(&t, 0, pp_thread, srv);
	long long threads = pp_run(a[1], b[0]);
	pthread_join(t, 0);
	long long procs = -1;
	pid_t c = procs_too ? fork() : -1;
	if (c == 0) {
		pp_serve(a[0], b[1]);
		_exit(0);
	}
	if (c > 0) {
		procs = pp_run(a[1], b[0]);
		fork_status(c);
	}
	printf("@result {\"name\": \"pingpong\", \"n\": %d, \"threads_ns\": %lld, \"processes_ns\": %lld}\n",
	       n, threads, procs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "pingpong"))   /* (N [threads]: no processes) */
		return pingpong(atoi(argv[2]), argc == 3);
	if (argc == 2)
		return mode(argv[1]);
	snprintf(pkg, sizeof pkg, "pkg=%s", posix_pkg->name);
	return fork_audit_report(body);
}
