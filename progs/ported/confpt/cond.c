/* pthread_cond_* and their attributes: timed waits on both clocks,
   signal and broadcast with and without waiters, EPERM and EINVAL. */
#include "conf.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int go, woken, waiting;

static void *waiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&m);
	waiting++;
	while (!go)
		pthread_cond_wait(&c, &m);
	go--;
	woken++;
	pthread_mutex_unlock(&m);
	return NULL;
}

static void wait_waiting(int n)
{
	for (;;) {
		pthread_mutex_lock(&m);
		int w = waiting;
		pthread_mutex_unlock(&m);
		if (w >= n)
			break;
		conf_msleep(1);
	}
	conf_msleep(10);
}

static void attrs(void)
{
	pthread_condattr_t a;
	int v;
	clockid_t ck;
	EQ(pthread_condattr_init(&a), 0);
	EQ(pthread_condattr_getpshared(&a, &v), 0);
	EQ(v, PTHREAD_PROCESS_PRIVATE);
	EQ(pthread_condattr_setpshared(&a, 12345), EINVAL);
	EQ(pthread_condattr_getclock(&a, &ck), 0);
	EQ(ck, CLOCK_REALTIME);
	EQ(pthread_condattr_setclock(&a, CLOCK_MONOTONIC), 0);
	pthread_condattr_getclock(&a, &ck);
	EQ(ck, CLOCK_MONOTONIC);
	EQ(pthread_condattr_setclock(&a, CLOCK_PROCESS_CPUTIME_ID), EINVAL);
	EQ(pthread_condattr_setclock(&a, CLOCK_THREAD_CPUTIME_ID), EINVAL);
	EQ(pthread_condattr_setclock(&a, 12345), EINVAL);
	EQ(pthread_condattr_destroy(&a), 0);
}

static void *wait_on_em(void *a)
{
	return (void *)(long)pthread_cond_wait(&c, a);
}

static void timed(void)
{
	pthread_condattr_t a;
	pthread_cond_t mc;
	struct timespec d, t0;
	pthread_mutexattr_t ma;
	pthread_mutex_t em;
	EQ(pthread_cond_signal(&c), 0);
	EQ(pthread_cond_broadcast(&c), 0);
	pthread_mutex_lock(&m);
	d = conf_after(CLOCK_REALTIME, -10);
	EQ(pthread_cond_timedwait(&c, &m, &d), ETIMEDOUT);
	EQ(pthread_mutex_trylock(&m), EBUSY);   /* held again */
	d.tv_nsec = 1000000000;
	EQ(pthread_cond_timedwait(&c, &m, &d), EINVAL);
	d.tv_nsec = -1;
	EQ(pthread_cond_timedwait(&c, &m, &d), EINVAL);
	t0 = conf_now();
	d = conf_after(CLOCK_REALTIME, 30);
	EQ(pthread_cond_timedwait(&c, &m, &d), ETIMEDOUT);
	CK(conf_ms_since(&t0) >= 29);
	pthread_mutex_unlock(&m);
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	EQ(pthread_cond_init(&mc, &a), 0);
	pthread_mutex_lock(&m);
	t0 = conf_now();
	d = conf_after(CLOCK_MONOTONIC, 30);
	EQ(pthread_cond_timedwait(&mc, &m, &d), ETIMEDOUT);
	CK(conf_ms_since(&t0) >= 29);
	pthread_mutex_unlock(&m);
	EQ(pthread_cond_destroy(&mc), 0);
	pthread_condattr_destroy(&a);
	/* Waits on an error-checking mutex not held: EPERM (glibc). */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&em, &ma);
	EQ(pthread_cond_wait(&c, &em), EPERM);
	d = conf_after(CLOCK_REALTIME, 10);
	EQ(pthread_cond_timedwait(&c, &em, &d), EPERM);
	/* ... or held by another thread: EPERM too. */
	EQ(pthread_mutex_lock(&em), 0);
	void *r = NULL;
	pthread_join(conf_start(wait_on_em, &em), &r);
	EQ((long)r, EPERM);
	pthread_mutex_unlock(&em);
	pthread_mutex_destroy(&em);
	pthread_mutexattr_destroy(&ma);
}

static void wakes(void)
{
	enum { N = 4 };
	pthread_t t[N];
	go = woken = waiting = 0;
	for (int i = 0; i < N; i++)
		t[i] = conf_start(waiter, NULL);
	wait_waiting(N);
	/* One signal: exactly one waiter. */
	pthread_mutex_lock(&m);
	go = 1;
	EQ(pthread_cond_signal(&c), 0);
	pthread_mutex_unlock(&m);
	conf_msleep(30);
	pthread_mutex_lock(&m);
	EQ(woken, 1);
	/* Broadcast: all the rest. */
	go = N - 1;
	EQ(pthread_cond_broadcast(&c), 0);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	EQ(woken, N);
	EQ(pthread_cond_destroy(&c), 0);
	pthread_cond_init(&c, NULL);
}

/* A signalled timed waiter returns 0 before its deadline. */
static void *timed_waiter(void *a)
{
	struct timespec d = conf_after(CLOCK_REALTIME, 5000);
	int r = 0;
	(void)a;
	pthread_mutex_lock(&m);
	waiting++;
	while (!go && r == 0)
		r = pthread_cond_timedwait(&c, &m, &d);
	pthread_mutex_unlock(&m);
	return (void *)(long)r;
}

static void timed_wake(void)
{
	void *r = (void *)-1L;
	go = waiting = 0;
	pthread_t t = conf_start(timed_waiter, NULL);
	wait_waiting(1);
	pthread_mutex_lock(&m);
	go = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(&m);
	pthread_join(t, &r);
	EQ((long)r, 0);
}

void area_cond(void)
{
	attrs();
	timed();
	wakes();
	timed_wake();
}
