/*
 * pshdestroy [ROUNDS]: a process-shared condition may be destroyed, and
 * its memory reused, as soon as a broadcast has woken its waiters, even
 * before they have left pthread_cond_wait (POSIX: "safe to destroy an
 * initialized condition variable upon which no threads are currently
 * blocked"; the public suite's pthread_cond_destroy 2-1 shape).
 *
 * Each round: a process-shared mutex and condition in MAP_SHARED memory;
 * 4 threads and 2 forked processes take the mutex, count themselves and
 * wait (a deadline 15 s of guest time away: a lost wake-up returns
 * ETIMEDOUT instead of hanging). Main, once all have counted, broadcasts
 * holding the mutex, unlocks, destroys the condition (0) and overwrites
 * it at once: with zeros (its words back to their values at init, so a
 * waiter that looks at them after the wake sees no signal) or with 0xff.
 * Every waiter must return 0. Before the rounds: destroying a
 * process-shared condition that waiters block on, with no wake-up yet,
 * gives EBUSY (a private one's answer), and after the broadcast 0.
 * @result {"name": "pshdestroy", "rounds": R, "checks": C, "failures": F}
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK_NAME "pshdestroy"
#include <check.h>

#define NT 4
#define NP 2

struct shared {
	pthread_mutex_t m;
	pthread_cond_t c;
	volatile int count, pred, bad;
};
static struct shared *sh;

/* One waiter: 0 if the wait returned 0, else the wait's error. */
static int waiter(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += 15;
	pthread_mutex_lock(&sh->m);
	sh->count++;
	int r = 0;
	while (r == 0 && !sh->pred)
		r = pthread_cond_timedwait(&sh->c, &sh->m, &ts);
	pthread_mutex_unlock(&sh->m);
	if (r)
		__atomic_fetch_add(&sh->bad, 1, __ATOMIC_RELAXED);
	return r;
}

static void *thread(void *a)
{
	(void)a;
	CHECK(waiter() == 0);
	return 0;
}

static void init(void)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_mutexattr_init(&ma);
	pthread_condattr_init(&ca);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	CHECK(pthread_mutex_init(&sh->m, &ma) == 0);
	CHECK(pthread_cond_init(&sh->c, &ca) == 0);
	sh->count = sh->pred = 0;
}

/* Start the waiters; return once all wait (main holds the mutex then). */
static void start(pthread_t *t, pid_t *p)
{
	for (int i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], 0, thread, 0) == 0);
	for (int i = 0; i < NP; i++) {
		fflush(stdout);
		p[i] = fork();
		if (p[i] == 0)
			_exit(waiter() != 0);
		CHECK(p[i] > 0);
	}
	pthread_mutex_lock(&sh->m);
	while (sh->count < NT + NP) {
		pthread_mutex_unlock(&sh->m);
		sched_yield();
		pthread_mutex_lock(&sh->m);
	}
}

static void finish(pthread_t *t, pid_t *p)
{
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], 0) == 0);
	for (int i = 0; i < NP; i++) {
		int st = -1;
		CHECK(waitpid(p[i], &st, 0) == p[i]);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	pthread_t t[NT];
	pid_t p[NP];
	sh = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);

	/* Waiters nobody woke: EBUSY; once broadcast, 0. */
	init();
	start(t, p);
	CHECK(pthread_cond_destroy(&sh->c) == EBUSY);
	sh->pred = 1;
	CHECK(pthread_cond_broadcast(&sh->c) == 0);
	pthread_mutex_unlock(&sh->m);
	CHECK(pthread_cond_destroy(&sh->c) == 0);
	finish(t, p);

	for (int r = 0; r < rounds; r++) {
		init();
		start(t, p);
		sh->pred = 1;
		CHECK(pthread_cond_broadcast(&sh->c) == 0);
		pthread_mutex_unlock(&sh->m);
		CHECK(pthread_cond_destroy(&sh->c) == 0);
		memset(&sh->c, r & 1 ? 0xff : 0, sizeof sh->c);   /* the memory reused */
		finish(t, p);
		CHECK(pthread_mutex_destroy(&sh->m) == 0);
	}
	CHECK(sh->bad == 0);
	printf("@result {\"name\": \"pshdestroy\", \"rounds\": %d, \"bad\": %d, \"checks\": %d, "
	       "\"failures\": %d}\n", rounds, sh->bad, checks, failures);
	return failures != 0;
}
