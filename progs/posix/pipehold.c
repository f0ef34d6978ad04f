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
#include <sys/mman.h>
#include <unistd.h>
#include <animalib/result.h>
#include <anima/file.h>
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

/* ---- charge ---- */

static long charged(void)
{
	return sys_getinfo(INFO_MEM_CHARGED);
}

/* The pipe's figures, for the result line (the body runs in a child). */
static struct { long read_end_paid, ring_freed; } *fig;

static int charge_body(void)
{
	int p[2];
	static char b[PIPE_CAP];
	/* The write end gone, in a child that filled the pipe: the read
	   end's holder pays for the ring it still holds, which closing the
	   read end gives back */
	CHECK(pipe(p) == 0);
	pid_t c = fork();
	if (c == 0) {
		close(p[0]);
		_exit(write(p[1], b, sizeof b) == sizeof b ? 0 : 1);
	}
	close(p[1]);
	CHECK(fork_status(c) == 0);
	long before = charged();
	CHECK(close(p[0]) == 0);
	fig->read_end_paid = before - charged();
	CHECK(fig->read_end_paid >= PIPE_CAP);
	/* The read end gone: nothing can read the ring any more, so it goes
	   at once, while the write end's holder keeps the pipe */
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], "x", 1) == 1);
	long avail0 = avail_flushed_in(2);     /* (main and this child) */
	CHECK(close(p[0]) == 0);
	fig->ring_freed = avail_flushed_in(2) - avail0;
	CHECK(fig->ring_freed >= PIPE_CAP);
	signal(SIGPIPE, SIG_IGN);
	CHECK(write(p[1], "x", 1) == -1 && errno == EPIPE);
	CHECK(close(p[1]) == 0);
	return failures;
}

static int charge(struct result *R)
{
	long lost;
	fig = mmap(0, sizeof *fig, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(fig != MAP_FAILED);
	if (fig == MAP_FAILED)
		return failures;
	int st = fork_audit(charge_body, &lost);
	CHECK(st == 0);
	result_int(R, "read_end_paid", fig->read_end_paid);
	result_int(R, "ring_freed", fig->ring_freed);
	result_int(R, "avail_lost", lost);
	return failures;
}

int main(int argc, char **argv)
{
	struct result R;
	result_begin(&R, "pipehold");
	int f = argc < 2 ? (CHECK(0), failures) : !strcmp(argv[1], "vp") ? vp(&R) : charge(&R);
	result_int(&R, "checks", checks);
	result_int(&R, "failures", f);
	result_end(&R);
	return f ? 1 : 0;
}
