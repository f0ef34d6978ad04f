/*
 * manysleep: hundreds of threads in long timed waits at once, as Linux
 * allows (the bound this checks: docs/posix.md). Of NT threads (argv[1],
 * default 600), NL (argv[2], default 400) wait 100 s: on a condition
 * with the default clock (CLOCK_REALTIME) and with CLOCK_MONOTONIC, in
 * sem_timedwait, and in nanosleep; the rest wait on the condition with
 * no deadline. Once all are waiting, a few threads check that short
 * deadlines still expire, in deadline order, never early, with
 * ETIMEDOUT (0 for the sleep). Then main broadcasts, posts and signals
 * the sleepers (SIGUSR1: EINTR), and joins them all: with every long
 * wait ended by its wake-up, long before its 100 s. @result {"name":
 * "manysleep", "checks", "failures", "setup_ms": time until all waited,
 * "wake_ms": from the broadcast until all were joined, "late_ms": the
 * latest short wait's lateness}. Guest times (the harness runs it under
 * --icount).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <stdio.h>
#include <stdint.h>

#define CHECK_NAME "manysleep"
#include <check.h>
#include <sigcatch.h>

#define NS 1000000000LL
#define MS 1000000LL
#define LONG_S 100               /* the long waits' deadline */
#define NSHORT 12                /* short waits, 20 ms apart */

enum { K_COND, K_MONO, K_SEM, K_SLEEP, K_PLAIN };

static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;   /* CLOCK_REALTIME */
static pthread_cond_t cvm;                             /* CLOCK_MONOTONIC */
static sem_t sem;
static int waiting, go, nsem;
static volatile int woke_sleep, timeouts;

static int64_t ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * NS + t.tv_nsec;
}

static struct timespec at(clockid_t c, int64_t after)
{
	int64_t v = ns(c) + after;
	return (struct timespec){ v / NS, v % NS };
}

static void on_usr1(int s)
{
	(void)s;
}

/* Wait until main says go: each kind's wait, 100 s long, ended early. */
static void *sleeper(void *arg)
{
	int kind = (int)(intptr_t)arg, r = 0;
	if (kind == K_SEM) {
		struct timespec d = at(CLOCK_REALTIME, LONG_S * NS);
		__atomic_fetch_add(&waiting, 1, __ATOMIC_SEQ_CST);
		while ((r = sem_timedwait(&sem, &d)) == -1 && errno == EINTR)
			;
		CHECK(r == 0);
		return 0;
	}
	if (kind == K_SLEEP) {
		struct timespec d = { LONG_S, 0 };
		__atomic_fetch_add(&waiting, 1, __ATOMIC_SEQ_CST);
		while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
			r = nanosleep(&d, 0);
		CHECK(r == -1 && errno == EINTR);
		__atomic_fetch_add(&woke_sleep, 1, __ATOMIC_SEQ_CST);
		return 0;
	}
	pthread_mutex_lock(&mx);
	waiting++;
	struct timespec d = at(kind == K_MONO ? CLOCK_MONOTONIC : CLOCK_REALTIME, LONG_S * NS);
	while (!go && r == 0)
		r = kind == K_PLAIN ? pthread_cond_wait(&cv, &mx)
		    : pthread_cond_timedwait(kind == K_MONO ? &cvm : &cv, &mx, &d);
	if (r == ETIMEDOUT)
		__atomic_fetch_add(&timeouts, 1, __ATOMIC_SEQ_CST);
	CHECK(r == 0 && go);
	pthread_mutex_unlock(&mx);
	return 0;
}

/* Short waits: thread i's deadline is 20 ms after the previous one's. */
static int64_t t0;
static volatile int order[NSHORT], seq;
static int64_t late[NSHORT];
static pthread_mutex_t smx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t scv = PTHREAD_COND_INITIALIZER;
static sem_t ssem;

static void *short_wait(void *arg)
{
	int i = (int)(intptr_t)arg, r;
	int64_t dl = t0 + (i + 1) * 20 * MS;      /* on CLOCK_MONOTONIC */
	struct timespec ts = { dl / NS, dl % NS };
	switch (i % 3) {
	case 0: {                                 /* the same instant on CLOCK_REALTIME */
		int64_t rt = ns(CLOCK_REALTIME) + (dl - ns(CLOCK_MONOTONIC));
		struct timespec rts = { rt / NS, rt % NS };
		pthread_mutex_lock(&smx);
		r = pthread_cond_timedwait(&scv, &smx, &rts);
		pthread_mutex_unlock(&smx);
		CHECK(r == ETIMEDOUT);
		break;
	}
	case 1:
		r = sem_clockwait(&ssem, CLOCK_MONOTONIC, &ts);
		CHECK(r == -1 && errno == ETIMEDOUT);
		break;
	default:
		r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, 0);
		CHECK(r == 0);
		break;
	}
	int64_t now = ns(CLOCK_MONOTONIC);
	order[i] = __atomic_fetch_add(&seq, 1, __ATOMIC_SEQ_CST);
	late[i] = now - dl;
	CHECK(now >= dl);                         /* never early */
	return 0;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 600, nl = argc > 2 ? atoi(argv[2]) : 400;
	pthread_t *th = calloc(nt, sizeof *th);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&cvm, &ca);
	sem_init(&sem, 0, 0);
	sem_init(&ssem, 0, 0);
	sig_catch(SIGUSR1, on_usr1, 0);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 32 * 1024);

	int64_t m0 = ns(CLOCK_MONOTONIC);
	int kinds[5] = { 0 };
	for (int i = 0; i < nt; i++) {
		/* the long waits: cond (realtime) half, the rest spread */
		int k = i >= nl ? K_PLAIN : i % 8 < 4 ? K_COND : i % 8 == 4 ? K_MONO
			: i % 8 < 7 ? K_SEM : K_SLEEP;
		kinds[k]++;
		CHECK(pthread_create(&th[i], &a, sleeper, (void *)(intptr_t)k) == 0);
	}
	nsem = kinds[K_SEM];
	/* all waiting: those on the conditions released the mutex in their wait */
	for (;;) {
		pthread_mutex_lock(&mx);
		int n = __atomic_load_n(&waiting, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&mx);
		if (n == nt)
			break;
		struct timespec d = { 0, 5 * MS };
		nanosleep(&d, 0);
	}
	int64_t setup = ns(CLOCK_MONOTONIC) - m0;

	/* Short deadlines beside the long ones: in order, on time. */
	pthread_t st[NSHORT];
	t0 = ns(CLOCK_MONOTONIC);
	for (int i = NSHORT - 1; i >= 0; i--)      /* created latest first */
		CHECK(pthread_create(&st[i], &a, short_wait, (void *)(intptr_t)i) == 0);
	int64_t worst = 0;
	for (int i = 0; i < NSHORT; i++) {
		CHECK(pthread_join(st[i], 0) == 0);
		CHECK(order[i] == i);
		worst = late[i] > worst ? late[i] : worst;
	}

	/* Wake them all. */
	int64_t w0 = ns(CLOCK_MONOTONIC);
	pthread_mutex_lock(&mx);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	CHECK(pthread_cond_broadcast(&cv) == 0 && pthread_cond_broadcast(&cvm) == 0);
	pthread_mutex_unlock(&mx);
	for (int i = 0; i < nsem; i++)
		CHECK(sem_post(&sem) == 0);
	/* a sleeper signalled before its nanosleep began sleeps on: again
	   until each has woken */
	while (__atomic_load_n(&woke_sleep, __ATOMIC_SEQ_CST) < kinds[K_SLEEP]) {
		for (int i = 0; i < nl; i++)
			if (i % 8 == 7)
				pthread_kill(th[i], SIGUSR1);
		struct timespec d = { 0, 10 * MS };
		nanosleep(&d, 0);
	}
	for (int i = 0; i < nt; i++)
		CHECK(pthread_join(th[i], 0) == 0);
	int64_t wake = ns(CLOCK_MONOTONIC) - w0;
	CHECK(timeouts == 0);
	printf("@result {\"name\": \"manysleep\", \"checks\": %d, \"failures\": %d, "
	       "\"threads\": %d, \"long\": %d, \"setup_ms\": %lld, \"wake_ms\": %lld, "
	       "\"late_ms\": %lld}\n", checks, failures, nt, nl, (long long)(setup / MS),
	       (long long)(wake / MS), (long long)(worst / MS));
	return failures != 0;
}
