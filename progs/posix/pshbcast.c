/*
 * pshbcast: a process-shared condition's broadcast wakes many threads
 * (the public suite's pthread_cond_broadcast 1-2 shape). N threads
 * (argument, default 64) take a process-shared mutex in MAP_SHARED
 * memory, count themselves and wait on a process-shared condition, odd
 * ones with a timed wait (a far deadline), even ones without; main
 * waits until all have counted (unlock, sched_yield, lock), sets the
 * predicate, broadcasts and joins them all.
 * @result {"name": "pshbcast", "threads": N, "woken": W, "checks": C,
 * "failures": F}
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define CHECK_NAME "pshbcast"
#include <check.h>

struct shared {
	pthread_mutex_t m;
	pthread_cond_t c;
	int count, pred, woken;
};
static struct shared *sh;

static void *child(void *a)
{
	(void)a;
	struct timespec ts;
	pthread_mutex_lock(&sh->m);
	int timed = ++sh->count & 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 180;
	int r = 0;
	while (r == 0 && !sh->pred)
		r = timed ? pthread_cond_timedwait(&sh->c, &sh->m, &ts) : pthread_cond_wait(&sh->c, &sh->m);
	CHECK(r == 0);
	sh->woken++;
	pthread_mutex_unlock(&sh->m);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	sh = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_mutexattr_init(&ma);
	pthread_condattr_init(&ca);
	CHECK(pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED) == 0);
	CHECK(pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED) == 0);
	CHECK(pthread_mutex_init(&sh->m, &ma) == 0);
	CHECK(pthread_cond_init(&sh->c, &ca) == 0);
	pthread_t *t = calloc(n, sizeof *t);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, PTHREAD_STACK_MIN);
	int made = 0;
	while (made < n && pthread_create(&t[made], &at, child, 0) == 0)
		made++;
	CHECK(made == n);
	printf("pshbcast: %d threads made\n", made);
	fflush(stdout);
	pthread_mutex_lock(&sh->m);
	while (sh->count < made) {
		pthread_mutex_unlock(&sh->m);
		sched_yield();
		pthread_mutex_lock(&sh->m);
	}
	sh->pred = 1;
	CHECK(pthread_cond_broadcast(&sh->c) == 0);
	pthread_mutex_unlock(&sh->m);
	for (int i = 0; i < made; i++)
		CHECK(pthread_join(t[i], 0) == 0);
	CHECK(sh->woken == made);
	printf("@result {\"name\": \"pshbcast\", \"threads\": %d, \"woken\": %d, \"checks\": %d, "
	       "\"failures\": %d}\n", made, sh->woken, checks, failures);
	return failures != 0;
}
