/*
 * forklock: fork while other threads hold the library's own locks.
 * Four threads loop on calls that take one each and make no system
 * call: fcntl(F_SETFD) (the descriptor table's lock, ulib/libc/fd.c),
 * getcwd (the working directory's, cwd.c), atexit (the exit list's,
 * start.c; past its bound it fails, still under the lock) and
 * fflush(stdout) with nothing buffered (stdout's, stdio.c). Main forks
 * ROUNDS (argv[1], 200) children, each of which makes the same four
 * calls, dups and closes a descriptor and returns through exit (its
 * atexit list); main waits for each. A child that inherited one of the
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
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <check.h>

#define BURST 64                 /* calls between two yields of a worker */

static volatile int stop;

static void nop(void) {}

/* The four calls, each one lock of the library's. */
static int touch(int which)
{
	char buf[64];
	if (which == 0)
		return fcntl(1, F_SETFD, 0);
	if (which == 1)
		return getcwd(buf, sizeof buf) ? 0 : -1;
	if (which == 3)
		return fflush(stdout);
	atexit(nop);                 /* (ENOMEM once full: the lock is taken all the same) */
	return 0;
}

static void *worker(void *arg)
{
	int which = (int)(long)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < BURST; i++)
			touch(which);
		sched_yield();
	}
	return 0;
}

/* The child: each lock once, a descriptor made and closed, and exit. */
static void child(void)
{
	int ok = touch(0) == 0 && touch(1) == 0 && touch(2) == 0 && touch(3) == 0;
	int d = dup(1);
	ok = ok && d > 2 && close(d) == 0;
	exit(ok ? 0 : 1);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	pthread_t th[4];
	for (long i = 0; i < 4; i++)
		CHECK(pthread_create(&th[i], 0, worker, (void *)i) == 0);
	long forks = 0;
	for (long i = 0; i < rounds; i++) {
		pid_t c = fork();
		if (c == 0)
			child();
		int st = -1;
		CHECK(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		forks++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 4; i++)
		CHECK(pthread_join(th[i], 0) == 0);
	printf("@result {\"name\": \"forklock\", \"checks\": %d, \"failures\": %d, \"forks\": %ld}\n",
	       checks, failures, forks);
	return failures != 0;
}
