/*
 * reaped: joining or detaching a thread that has ended and been joined,
 * or detached and reaped, is ESRCH (ulib/pthread/pthread.c: the join word
 * of a reaped thread is the thread itself), and never frees it twice.
 *
 *   - joined: a second pthread_join, pthread_detach, pthread_tryjoin_np
 *     and pthread_timedjoin_np give ESRCH;
 *   - ended, then detached (which reclaims it at once): join and detach
 *     give ESRCH;
 *   - created detached, ended, reaped (by a later create): join and
 *     detach give ESRCH;
 *   - 200 rounds of create, join, join again, detach, then two threads
 *     alive at once: they are different threads (before, the second join
 *     freed the first thread's descriptor again, the package's pool held
 *     it twice and the next two creates both got it).
 * @result {"name": "reaped", "checks": N, "failures": F}, exit 0 iff F == 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define CHECK_NAME "reaped"
#include <check.h>

static volatile int ended;

static void *quick(void *arg)
{
	return arg;
}

static void *mark(void *arg)
{
	(void)arg;
	__atomic_store_n(&ended, 1, __ATOMIC_RELEASE);
	return 0;
}

static sem_t go;

static void *held(void *arg)
{
	sem_wait(&go);
	return arg;
}

static int errs(pthread_t t)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec++;
	int n = 0;
	n += pthread_join(t, 0) == ESRCH;
	n += pthread_detach(t) == ESRCH;
	n += pthread_tryjoin_np(t, 0) == ESRCH;
	n += pthread_timedjoin_np(t, 0, &ts) == ESRCH;
	return n;
}

/* Create one thread, join it: a create runs reap_done first. */
static void create_join(void)
{
	pthread_t t;
	if (!pthread_create(&t, 0, quick, 0))
		pthread_join(t, 0);
}

int main(void)
{
	pthread_t a, b, c;
	void *v = 0;

	/* joined */
	CHECK(pthread_create(&a, 0, quick, (void *)7) == 0);
	CHECK(pthread_join(a, &v) == 0 && v == (void *)7);
	CHECK(errs(a) == 4);

	/* ended, then detached */
	ended = 0;
	CHECK(pthread_create(&b, 0, mark, 0) == 0);
	while (!__atomic_load_n(&ended, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(20000);                   /* off its stack */
	CHECK(pthread_detach(b) == 0);
	CHECK(errs(b) == 4);

	/* created detached, ended, reaped by a later create */
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	ended = 0;
	CHECK(pthread_create(&c, &at, mark, 0) == 0);
	int r = 0;
	for (int i = 0; i < 1000 && r != ESRCH; i++) {
		usleep(1000);
		create_join();
		r = pthread_join(c, 0);      /* EINVAL until it is reaped */
		CHECK(r == ESRCH || r == EINVAL);
	}
	CHECK(r == ESRCH);
	CHECK(pthread_detach(c) == ESRCH);

	/* never freed twice */
	int distinct = 0, rounds = 200;
	sem_init(&go, 0, 0);
	for (int i = 0; i < rounds; i++) {
		pthread_t x, y, z;
		if (pthread_create(&x, 0, quick, 0))
			break;
		pthread_join(x, 0);
		int e1 = pthread_join(x, 0), e2 = pthread_detach(x);
		if (pthread_create(&y, 0, held, 0))
			break;
		if (pthread_create(&z, 0, held, 0)) {
			sem_post(&go);
			pthread_join(y, 0);
			break;
		}
		distinct += !pthread_equal(y, z) && e1 == ESRCH && e2 == ESRCH;
		sem_post(&go);
		sem_post(&go);
		pthread_join(y, 0);
		pthread_join(z, 0);
	}
	CHECK(distinct == rounds);
	printf("@result {\"name\": \"reaped\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
