/*
 * forkposix: POSIX fork on a thread package (ulib/pthread/pfork.c,
 * ulib/libc/proc.c; harness/tests/test_fork.py, every package).
 *
 * - memory: the child sees globals, the heap and the stack as at the
 *   fork though the parent overwrites them at once; its writes stay its
 *   own.
 * - threads: three workers count without pause; a fourth thread (not
 *   main) forks. In the child only that thread runs: the workers' counts
 *   stand still over 20 ms of yields and sleeps, pthread_self is the
 *   forker's, malloc works (the workers malloc without pause: malloc's
 *   fork handlers), and a thread it creates runs and joins (the package
 *   works on its one VP).
 * - atfork: prepare handlers in reverse order of registration, parent
 *   and child handlers in order.
 * - statuses: exit(3), a fault (SIGSEGV), kill(child, SIGKILL), WNOHANG
 *   on a running child, wait(), getppid() in the child, ECHILD at the end.
 * Each child reports its failed checks as its exit status. Ends with
 * @result {"name": "forkposix", "checks": N, "failures": F}.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <animalib/result.h>

#define CHECK_NAME "forkposix"
#include <check.h>

static long g[1024];

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
	nanosleep(&ts, 0);
}

/* The child's exit status: its failed checks. */
static int child_done(void)
{
	fflush(stdout);
	_exit(failures > 100 ? 100 : failures);
}

static void memory(void)
{
	long stack[512];
	long *heap = malloc(64 * 1024);
	for (int i = 0; i < 1024; i++)
		g[i] = i;
	for (int i = 0; i < 512; i++)
		stack[i] = 2 * i;
	for (int i = 0; i < 8192; i++)
		heap[i] = 3 * i;
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		ms_sleep(20);                    /* the parent overwrites meanwhile */
		long bad = 0;
		for (int i = 0; i < 1024; i++)
			bad += g[i] != i;
		for (int i = 0; i < 512; i++)
			bad += stack[i] != 2 * i;
		for (int i = 0; i < 8192; i++)
			bad += heap[i] != 3 * i;
		CHECK(bad == 0);
		for (int i = 0; i < 1024; i++)
			g[i] = -1;
		memset(heap, 0xff, 64 * 1024);
		child_done();
	}
	for (int i = 0; i < 1024; i++)
		g[i] = 7;
	for (int i = 0; i < 8192; i++)
		heap[i] = 9;
	int st = -1;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	long bad = 0;
	for (int i = 0; i < 1024; i++)
		bad += g[i] != 7;
	for (int i = 0; i < 8192; i++)
		bad += heap[i] != 9;
	CHECK(bad == 0);
	free(heap);
}

static volatile long counts[3];
static volatile int stop;
static pthread_t forker_id;

static void *worker(void *arg)
{
	long i = (long)arg;
	while (!stop) {
		free(malloc(16 + (size_t)(counts[i] % 4096)));   /* malloc busy on every VP at the fork */
		counts[i]++;
		if (counts[i] % 1024 == 0)
			sched_yield();
	}
	return 0;
}

static void *little(void *arg)
{
	return (void *)((long)arg + 1);
}

static void *forker(void *arg)
{
	(void)arg;
	while (counts[0] < 1000 || counts[1] < 1000 || counts[2] < 1000)
		sched_yield();
	pid_t pid = fork();
	if (pid == 0) {
		long seen[3] = { counts[0], counts[1], counts[2] };
		for (int i = 0; i < 100; i++)
			sched_yield();
		ms_sleep(20);
		CHECK(counts[0] == seen[0] && counts[1] == seen[1] && counts[2] == seen[2]);
		CHECK(pthread_equal(pthread_self(), forker_id));
		long got = 0;                    /* malloc works on the child's VP (pfork.c, malloc.c) */
		for (int i = 0; i < 2000; i++) {
			void *m = malloc(16 + (size_t)i * 7 % 5000);
			got += m != 0;
			free(m);
		}
		CHECK(got == 2000);
		pthread_t t;
		void *r = 0;
		CHECK(pthread_create(&t, 0, little, (void *)41) == 0);
		CHECK(pthread_join(t, &r) == 0 && r == (void *)42);
		child_done();
	}
	return (void *)(long)pid;
}

static void threads(void)
{
	pthread_t w[3];
	for (long i = 0; i < 3; i++)
		CHECK(pthread_create(&w[i], 0, worker, (void *)i) == 0);
	void *r;
	CHECK(pthread_create(&forker_id, 0, forker, 0) == 0);
	CHECK(pthread_join(forker_id, &r) == 0);
	pid_t pid = (pid_t)(long)r;
	CHECK(pid > 0);
	int st = -1;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	long before = counts[0];
	ms_sleep(5);
	stop = 1;
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(w[i], 0) == 0);
	CHECK(counts[0] >= before);       /* the parent's workers went on */
}

static char order[16];
static volatile int norder;

static void add(char c) { order[norder++] = c; }
static void pa(void) { add('a'); }
static void pb(void) { add('b'); }
static void xa(void) { add('A'); }
static void xb(void) { add('B'); }
static void ca(void) { add('1'); }
static void cb(void) { add('2'); }

static void atfork(void)
{
	CHECK(pthread_atfork(pa, xa, ca) == 0);
	CHECK(pthread_atfork(pb, xb, cb) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		CHECK(norder == 4 && !memcmp(order, "ba12", 4));
		child_done();
	}
	CHECK(norder == 4 && !memcmp(order, "baAB", 4));
	int st = -1;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static volatile int *volatile nowhere = (volatile int *)16;

static void statuses(void)
{
	pid_t me = getpid();
	pid_t a = fork();
	if (a == 0) {
		CHECK(getppid() == me);
		if (failures)
			child_done();
		exit(3);
	}
	pid_t b = fork();
	if (b == 0)
		*nowhere = 1;
	pid_t c = fork();
	if (c == 0)
		for (;;)
			ms_sleep(1);
	int st = -1;
	CHECK(waitpid(c, &st, WNOHANG) == 0);
	CHECK(waitpid(a, &st, 0) == a && WIFEXITED(st) && WEXITSTATUS(st) == 3);
	CHECK(waitpid(b, &st, 0) == b && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	CHECK(kill(c, SIGKILL) == 0);
	CHECK(wait(&st) == c && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	errno = 0;
	CHECK(wait(&st) == -1 && errno == ECHILD);
	CHECK(kill(c, 0) == -1 && errno == ESRCH);
}

int main(void)
{
	memory();
	threads();
	atfork();
	statuses();
	struct result res;
	result_begin(&res, "forkposix");
	result_int(&res, "checks", checks);
	result_int(&res, "failures", failures);
	result_end(&res);
	return failures != 0;
}
