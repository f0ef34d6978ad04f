/*
 * bigstack: thread stacks as ported code expects them (ulib/rt/stack.c).
 *
 *   bigstack          the checks: a thread with default attributes and
 *                     main each use a 1 MiB array and 2 MiB of recursion
 *                     (8 MiB stacks, as glibc's); the defaults read back
 *                     (pthread_attr_getstacksize 8 MiB, guard a page);
 *                     a small explicit size still works; 2,000 threads
 *                     alive at once (kthread: as many as it has VPs)
 *                     cost what they touch, not 16 GiB (available
 *                     memory drops by under 512 KiB a thread, a kthread
 *                     or det=par VP's kernel stack, pages and view
 *                     included).
 *   bigstack overflow a thread recurses without end: the space must be
 *                     killed by a page fault just below its stack (the
 *                     page under it is never mapped), not run on into
 *                     memory below. It prints its first frame's address
 *                     first, so the test can place the fault.
 *
 * Before, every POSIX thread had a 64 KiB malloc block and no guard: the
 * 1 MiB array killed the program on every package, and an overflow ran
 * into whatever lay below. @result {"name": "bigstack", "checks": N,
 * "failures": F}, exit 0 iff F == 0.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <avail.h>

#define CHECK_NAME "bigstack"
#include <check.h>

#define MIB (1024 * 1024)
#define NLIVE 2000

/* A frame of about 1 KiB per level, that the compiler cannot fold. */
static __attribute__((noinline)) long deep(int n, volatile char *prev)
{
	volatile char pad[1000];
	pad[0] = (char)n;
	pad[999] = prev ? prev[0] : 0;
	return n ? deep(n - 1, pad) + pad[0] : pad[999];
}

static __attribute__((noinline)) long big_array(void)
{
	volatile char a[MIB];
	for (int i = 0; i < MIB; i += 4096)
		a[i] = (char)(i >> 12);
	long s = 0;
	for (int i = 0; i < MIB; i += 4096)
		s += a[i];
	return s;
}

static long expect_array(void)
{
	long s = 0;
	for (int i = 0; i < MIB; i += 4096)
		s += (char)(i >> 12);
	return s;
}

static long expect_deep(int n)
{
	long s = (char)1;                /* deep(0)'s pad[999]: level 1's pad[0] */
	for (int k = 1; k <= n; k++)
		s += (char)k;
	return s + (char)0;
}

static void *user(void *arg)
{
	(void)arg;
	CHECK(big_array() == expect_array());
	CHECK(deep(2000, 0) == expect_deep(2000));
	return 0;
}

static void *small(void *arg)
{
	volatile char a[16 * 1024];
	a[0] = 1;
	a[sizeof a - 1] = 2;
	return (void *)(long)(a[0] + a[sizeof a - 1] + (long)arg);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int arrived, go;

static void *live(void *arg)
{
	volatile char a[2000];
	a[0] = 1;
	pthread_mutex_lock(&mu);
	arrived++;
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return (void *)(long)(a[0] + (long)arg);
}

static int arrivals(void)
{
	pthread_mutex_lock(&mu);
	int n = arrived;
	pthread_mutex_unlock(&mu);
	return n;
}

static void *overflow(void *arg)
{
	(void)arg;
	volatile char here = 0;
	printf("@result {\"name\": \"bigstack_top\", \"addr\": %lu}\n", (unsigned long)(uintptr_t)&here);
	fflush(stdout);
	deep(1 << 30, &here);             /* never returns: 1 KiB a level */
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t;
	if (argc > 1 && !strcmp(argv[1], "overflow")) {
		pthread_create(&t, 0, overflow, 0);
		pthread_join(t, 0);
		printf("bigstack: the overflow returned\n");
		return 1;
	}
	pthread_attr_t a;
	size_t n = 0;
	CHECK(pthread_attr_init(&a) == 0);
	CHECK(pthread_attr_getstacksize(&a, &n) == 0 && n == 8 * MIB);
	CHECK(pthread_attr_getguardsize(&a, &n) == 0 && n == 4096);

	/* default attributes, explicit default attributes, and main */
	CHECK(pthread_create(&t, 0, user, 0) == 0 && pthread_join(t, 0) == 0);
	CHECK(pthread_create(&t, &a, user, 0) == 0 && pthread_join(t, 0) == 0);
	user(0);

	/* a small explicit stack: a malloc block, as before */
	void *r = 0;
	CHECK(pthread_attr_setstacksize(&a, 64 * 1024) == 0);
	CHECK(pthread_create(&t, &a, small, (void *)5L) == 0 && pthread_join(t, &r) == 0 && r == (void *)8L);

	/* 2,000 live threads (kthread: a VP each, up to its 255 and EAGAIN):
	   each touches its top pages only */
	static pthread_t th[NLIVE];
	long before = avail_wait(AVAIL_STEADY, 1);
	int made = 0, err = 0;
	for (; made < NLIVE; made++)
		if ((err = pthread_create(&th[made], 0, live, (void *)(long)made)))
			break;
	CHECK(made == NLIVE || (made >= 200 && err == EAGAIN));
	while (arrivals() < made)
		sched_yield();                   /* every thread has touched its stack */
	long during = avail();
	/* (kthread: with its VP's kernel stack and pages; det=par: a VP each
	   too, and its view's private tables, holds and the copy and twin of
	   each page the thread wrote, 273 KiB a thread in all. Far under the
	   8 MiB stack either way: what is measured is that stacks cost what
	   they touch) */
	CHECK(before - during < (long)made * 512 * 1024);
	printf("bigstack: %d live threads took %ld KiB (%ld bytes a thread)\n", made,
	       (before - during) / 1024, (before - during) / (made ? made : 1));
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	long sum = 0;
	for (int i = 0; i < made; i++) {
		void *v;
		CHECK(pthread_join(th[i], &v) == 0);
		sum += (long)v;
	}
	CHECK(sum == (long)made * (made - 1) / 2 + made);
	printf("@result {\"name\": \"bigstack\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
