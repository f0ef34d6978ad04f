/*
 * forklock: fork while other threads hold the library's own locks.
 * Four threads loop on calls that take one each and make no system
 * call: fcntl(F_SETFD) (the descriptor table's lock, ulib/libc/fd.c),
 * getcwd (the working directory's, cwd.c), atexit (the exit list's,
 * start.c; past its bound it fails, still under the lock) and
 * fflush(stdout) with nothing buffered (stdout's, stdio.c); and five
 * more on the rest: fopen, fprintf and fclose of a file (the stream
 * list's and the stream's own lock, malloc's), flockfile and
 * funlockfile of a shared stream and of stdin (a stream's owner),
 * setenv, putenv, unsetenv and getenv (the environment's, which calls
 * malloc while held), rand, lrand48 and setlogmask (rand.c, rand48.c,
 * syslog.c), and pthread_key_create/delete with a tmpfile now and then
 * (pthread.c's keys, tmpfile.c's names); and four more: __atomic_load
 * and __atomic_store of a 24-byte object (atomic.c's locks),
 * pthread_getcpuclockid and clock_gettime of it and of the thread and process
 * CPU clocks (cpuclock.c's table), futex wake and wait by syscall
 * (futex.c's buckets), and pthread_create with join or detach, and
 * popen/pclose of `echo x` now and then (the runtime's descriptors and
 * pools; popen's list). Main forks ROUNDS (argv[1], 200) children, each
 * of which makes the same thirteen calls (popen every eighth), dups and
 * closes a descriptor and returns through exit (its atexit list and
 * its streams' flush); main waits for each. A child that inherited one of the
 * locks held (its holder is not copied) spun for good and the wait with
 * it: credstorm's fork-and-exec child on kthread (ulib/pthread/pfork.c
 * now holds them across the copy). Each worker yields now and then, so
 * a package that never preempts one thread for another (naive, det)
 * still runs main. Counts only. @result {"name": "forklock", "checks",
 * "failures", "forks"}.
 */
#define CHECK_NAME "forklock"
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <syslog.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <check.h>

#define BURST 64                 /* calls between two yields of a worker */

#define NWORK 13

static volatile int stop;
static FILE *shared;             /* flockfile's stream, a file main opens */

static void nop(void) {}

/* 24 bytes: not a size GCC inlines, so __atomic_load/store are calls
   (ulib/libc/atomic.c's locks). */
static struct big { long a, b, c; } big;
static volatile int fword;       /* the futex calls' word (never 1) */
static long round;               /* main's fork count: the child's */

static void *quick(void *arg)
{
	return arg;
}

/* popen of a command that writes one line; its pclose's status. */
static int shell(void)
{
	FILE *p = popen("echo x", "r");
	if (!p)
		return -1;
	char b[8];
	int ok = fgets(b, sizeof b, p) && b[0] == 'x';
	return pclose(p) == 0 && ok ? 0 : -1;
}

/* One file per caller (a worker or a child), written and closed. */
static int file(int who)
{
	char p[32] = "/tmp/forklock.";
	p[14] = (char)('a' + who);
	FILE *f = fopen(p, "w");
	if (!f)
		return -1;
	int ok = fprintf(f, "%d %s\n", who, p) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* The nine calls, each one lock of the library's (or several). */
static int touch(int which, int who)
{
	char buf[64];
	static unsigned n[NWORK + 1];
	switch (which) {
	case 0:
		return fcntl(1, F_SETFD, 0);
	case 1:
		return getcwd(buf, sizeof buf) ? 0 : -1;
	case 2:
		atexit(nop);             /* (ENOMEM once full: the lock is taken all the same) */
		return 0;
	case 3:
		return fflush(stdout);
	case 4:
		return file(who);
	case 5:
		flockfile(shared);
		flockfile(stdin);
		funlockfile(stdin);
		funlockfile(shared);
		return 0;
	case 6:                          /* (setenv's strings are never freed: once a burst) */
		if ((who == NWORK || n[who]++ % 64 == 0) && setenv("FORKLOCK_S", "s", 1) < 0)
			return -1;
		if (putenv("FORKLOCK_P=p") < 0 || !getenv("FORKLOCK_S") || unsetenv("FORKLOCK_P") < 0)
			return -1;
		return 0;
	case 7:
		rand();
		lrand48();
		setlogmask(0);
		return 0;
	case 8: {
		pthread_key_t k;
		if (pthread_key_create(&k, 0) || pthread_key_delete(k))
			return -1;
		if (who == NWORK || n[who]++ % 64 == 0) {
			FILE *t = tmpfile();
			return t && fclose(t) == 0 ? 0 : -1;
		}
		return 0;
	}
	case 9: {                        /* the big atomics' lock of &big */
		struct big v;
		__atomic_load(&big, &v, __ATOMIC_SEQ_CST);
		v.a++, v.c = v.a;
		__atomic_store(&big, &v, __ATOMIC_SEQ_CST);
		return 0;
	}
	case 10: {                       /* cpuclock.c's table; the CPU clocks */
		clockid_t c;
		struct timespec ts;
		if (pthread_getcpuclockid(pthread_self(), &c) || clock_gettime(c, &ts) ||
		    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) ||
		    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
			return -1;
		return 0;
	}
	case 11:                         /* futex.c's bucket of &fword */
		if (syscall(SYS_futex, &fword, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 1, 0, 0, 0) != -1)
			return -1;
		return 0;
	default: {                       /* threads made, joined, detached; popen */
		pthread_t t;
		if (pthread_create(&t, 0, quick, 0) || pthread_join(t, 0))
			return -1;
		if (n[who]++ % 8 == 0 && (pthread_create(&t, 0, quick, 0) || pthread_detach(t)))
			return -1;
		if (who == NWORK ? round % 8 == 0 : n[who] % 512 == 0)
			return shell();
		return 0;
	}
	}
}

static void *worker(void *arg)
{
	int which = (int)(long)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < BURST; i++)
			touch(which, which);
		sched_yield();
	}
	return 0;
}

/* The child: each lock once, a descriptor made and closed, and exit. */
static void child(void)
{
	int ok = 1;
	for (int w = 0; w < NWORK; w++)
		ok = ok && touch(w, NWORK) == 0;
	int d = dup(1);
	ok = ok && d > 2 && close(d) == 0;
	exit(ok ? 0 : 1);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	pthread_t th[NWORK];
	shared = fopen("/tmp/forklock.shared", "w");
	CHECK(shared != 0);
	for (long i = 0; i < NWORK; i++)
		CHECK(pthread_create(&th[i], 0, worker, (void *)i) == 0);
	long forks = 0;
	for (long i = 0; i < rounds; i++) {
		round = i;
		pid_t c = fork();
		if (c == 0)
			child();
		int st = -1;
		CHECK(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		forks++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NWORK; i++)
		CHECK(pthread_join(th[i], 0) == 0);
	printf("@result {\"name\": \"forklock\", \"checks\": %d, \"failures\": %d, \"forks\": %ld}\n",
	       checks, failures, forks);
	return failures != 0;
}
