/*
 * pipehold: a pipe another process holds (kernel/pipe.c, ulib/libc/pipe.c;
 * harness/tests/test_pipehold.py).
 *   vp      (run with vps=1) a thread reads a pipe a child holds while
 *           another thread of the same VP counts VP_STEPS yields; only
 *           then does it tell the child (a second pipe) to write. The
 *           read must end with the child's "go", after every step: a VP
 *           blocked whole in the kernel by the read runs no step, and the
 *           child, tired of waiting (FALLBACK_MS, only so that such a run
 *           ends instead of hanging), writes "to" instead.
 *   charge  one end of a pipe with the other end gone: what the pipe
 *           still holds is paid for by the survivor (INFO_KBYTES), and
 *           the ring goes once nothing can read it (INFO_MEM_AVAIL).
 * Prints @result {"name": "pipehold", ...}; exits 0 iff every check held.
 */
#define CHECK_NAME "pipehold"
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <animalib/result.h>
#include <check.h>
#include <forkaudit.h>

/* ---- vp ---- */

#define VP_STEPS    1000
#define FALLBACK_MS 10000

static volatile int started, steps, steps_at_read;

static void *reader(void *arg)
{
	int fd = *(int *)arg;
	static char b[4];
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	ssize_t n = read(fd, b, 2);
	__atomic_store_n(&steps_at_read, steps, __ATOMIC_RELEASE);
	return n == 2 && !memcmp(b, "go", 2) ? b : 0;
}

static int vp(struct result *R)
{
	int a[2], g[2];
	CHECK(pipe(a) == 0 && pipe(g) == 0);
	signal(SIGPIPE, SIG_IGN);            /* (a child that gave up is gone) */
	pid_t c = fork();
	if (c == 0) {
		close(a[0]), close(g[1]);
		struct pollfd pf = { .fd = g[0], .events = POLLIN };
		int go = poll(&pf, 1, FALLBACK_MS) == 1;
		_exit(write(a[1], go ? "go" : "to", 2) == 2 ? 0 : 1);
	}
	close(a[1]), close(g[0]);
	pthread_t t;
	void *r = 0;
	CHECK(pthread_create(&t, 0, reader, &a[0]) == 0);
	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		sched_yield();
	for (int i = 0; i < VP_STEPS; i++) {  /* the reader waits meanwhile */
		__atomic_store_n(&steps, i + 1, __ATOMIC_RELEASE);
		sched_yield();
	}
	write(g[1], "!", 1);
	CHECK(pthread_join(t, &r) == 0);
	CHECK(r != 0);                       /* the child's "go": it waited for the steps */
	CHECK(steps_at_read == VP_STEPS);
	CHECK(fork_status(c) == 0);
	close(a[0]), close(g[1]);
	result_int(R, "steps", steps);
	result_int(R, "steps_at_read", steps_at_read);
	return failures;
}

int main(int argc, char **argv)
{
	struct result R;
	result_begin(&R, "pipehold");
	int f = argc > 1 && !strcmp(argv[1], "vp") ? vp(&R) : (CHECK(0), failures);
	result_int(&R, "checks", checks);
	result_int(&R, "failures", f);
	result_end(&R);
	return f ? 1 : 0;
}
