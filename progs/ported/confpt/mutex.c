/* pthread_mutex_* and their attributes: every type, trylock, owner
   errors, timed locks (glibc: the deadline is checked only when the
   lock must wait, and a past one gives ETIMEDOUT). */
#include "conf.h"

static pthread_mutex_t m;
static void *other_try(void *a)
{
	(void)a;
	return (void *)(long)pthread_mutex_trylock(&m);
}

static void *other_unlock(void *a)
{
	(void)a;
	return (void *)(long)pthread_mutex_unlock(&m);
}

static void *other_timed(void *a)
{
	struct timespec d = *(struct timespec *)a;
	return (void *)(long)pthread_mutex_timedlock(&m, &d);
}

static long in_other(void *(*fn)(void *), void *arg)
{
	void *r = NULL;
	pthread_join(conf_start(fn, arg), &r);
	return (long)r;
}

static void attrs(void)
{
	pthread_mutexattr_t a;
	int v;
	EQ(pthread_mutexattr_init(&a), 0);
	EQ(pthread_mutexattr_gettype(&a, &v), 0);
	EQ(v, PTHREAD_MUTEX_DEFAULT);
	EQ(PTHREAD_MUTEX_DEFAULT, PTHREAD_MUTEX_NORMAL);   /* glibc's */
	EQ(pthread_mutexattr_settype(&a, 12345), EINVAL);
	EQ(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE), 0);
	pthread_mutexattr_gettype(&a, &v);
	EQ(v, PTHREAD_MUTEX_RECURSIVE);
	EQ(pthread_mutexattr_getpshared(&a, &v), 0);
	EQ(v, PTHREAD_PROCESS_PRIVATE);
	EQ(pthread_mutexattr_setpshared(&a, 12345), EINVAL);
	EQ(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
	pthread_mutexattr_getpshared(&a, &v);
	EQ(v, PTHREAD_PROCESS_SHARED);
	EQ(pthread_mutexattr_getprotocol(&a, &v), 0);
	EQ(v, PTHREAD_PRIO_NONE);
	EQ(pthread_mutexattr_setprotocol(&a, 12345), EINVAL);
	EQ(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT), 0);
	EQ(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT), 0);
	pthread_mutexattr_getprotocol(&a, &v);
	EQ(v, PTHREAD_PRIO_PROTECT);
	EQ(pthread_mutexattr_getprioceiling(&a, &v), 0);
	CK(v >= sched_get_priority_min(SCHED_FIFO) && v <= sched_get_priority_max(SCHED_FIFO));
	EQ(pthread_mutexattr_setprioceiling(&a, sched_get_priority_max(SCHED_FIFO)), 0);
	pthread_mutexattr_getprioceiling(&a, &v);
	EQ(v, sched_get_priority_max(SCHED_FIFO));
	EQ(pthread_mutexattr_setprioceiling(&a, sched_get_priority_max(SCHED_FIFO) + 1), EINVAL);
	EQ(pthread_mutexattr_getrobust(&a, &v), 0);
	EQ(v, PTHREAD_MUTEX_STALLED);
	EQ(pthread_mutexattr_setrobust(&a, 12345), EINVAL);
	EQ(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST), 0);
	pthread_mutexattr_getrobust(&a, &v);
	EQ(v, PTHREAD_MUTEX_ROBUST);
	EQ(pthread_mutexattr_destroy(&a), 0);
}

static void init_type(int type)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	EQ(pthread_mutex_init(&m, &a), 0);
	pthread_mutexattr_destroy(&a);
}

static void normal(void)
{
	static pthread_mutex_t st = PTHREAD_MUTEX_INITIALIZER;
	EQ(pthread_mutex_lock(&st), 0);
	EQ(pthread_mutex_trylock(&st), EBUSY);
	EQ(pthread_mutex_unlock(&st), 0);
	EQ(pthread_mutex_trylock(&st), 0);
	EQ(pthread_mutex_unlock(&st), 0);
	EQ(pthread_mutex_init(&m, NULL), 0);
	EQ(pthread_mutex_lock(&m), 0);
	EQ(in_other(other_try, NULL), EBUSY);
	EQ(pthread_mutex_unlock(&m), 0);
	EQ(in_other(other_try, NULL), 0);   /* the thread ends holding it */
	EQ(pthread_mutex_destroy(&m), EBUSY);   /* glibc: held */
	pthread_mutex_init(&m, NULL);
	EQ(pthread_mutex_destroy(&m), 0);
}

static void errorcheck(void)
{
	static pthread_mutex_t st = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	EQ(pthread_mutex_lock(&st), 0);
	EQ(pthread_mutex_lock(&st), EDEADLK);
	EQ(pthread_mutex_unlock(&st), 0);
	EQ(pthread_mutex_unlock(&st), EPERM);
	init_type(PTHREAD_MUTEX_ERRORCHECK);
	EQ(pthread_mutex_unlock(&m), EPERM);
	EQ(pthread_mutex_lock(&m), 0);
	EQ(pthread_mutex_lock(&m), EDEADLK);
	EQ(pthread_mutex_trylock(&m), EBUSY);
	EQ(in_other(other_unlock, NULL), EPERM);
	EQ(in_other(other_try, NULL), EBUSY);
	struct timespec d = conf_after(CLOCK_REALTIME, 10);
	EQ(pthread_mutex_timedlock(&m, &d), EDEADLK);
	EQ(pthread_mutex_unlock(&m), 0);
	EQ(pthread_mutex_destroy(&m), 0);
}

static void recursive(void)
{
	static pthread_mutex_t st = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	EQ(pthread_mutex_lock(&st), 0);
	EQ(pthread_mutex_lock(&st), 0);
	EQ(pthread_mutex_unlock(&st), 0);
	EQ(pthread_mutex_unlock(&st), 0);
	EQ(pthread_mutex_unlock(&st), EPERM);
	init_type(PTHREAD_MUTEX_RECURSIVE);
	EQ(pthread_mutex_unlock(&m), EPERM);
	EQ(pthread_mutex_lock(&m), 0);
	EQ(pthread_mutex_lock(&m), 0);
	EQ(pthread_mutex_trylock(&m), 0);
	struct timespec d = conf_after(CLOCK_REALTIME, 10);
	EQ(pthread_mutex_timedlock(&m, &d), 0);
	EQ(in_other(other_unlock, NULL), EPERM);
	EQ(in_other(other_try, NULL), EBUSY);
	for (int i = 0; i < 4; i++)
		EQ(pthread_mutex_unlock(&m), 0);
	EQ(pthread_mutex_unlock(&m), EPERM);
	EQ(in_other(other_try, NULL), 0);
	pthread_mutex_init(&m, NULL);
}

static void timed(void)
{
	struct timespec past = { 0, 0 }, bad, d, t0;
	pthread_mutex_init(&m, NULL);
	EQ(pthread_mutex_timedlock(&m, &past), 0);   /* free: no wait */
	EQ(pthread_mutex_unlock(&m), 0);
	past = conf_after(CLOCK_REALTIME, -1000);
	EQ(pthread_mutex_lock(&m), 0);
	EQ(in_other(other_timed, &past), ETIMEDOUT);
	bad = conf_after(CLOCK_REALTIME, 1000);
	bad.tv_nsec = 1000000000;
	EQ(in_other(other_timed, &bad), EINVAL);
	bad.tv_nsec = -1;
	EQ(in_other(other_timed, &bad), EINVAL);
	t0 = conf_now();
	d = conf_after(CLOCK_REALTIME, 50);
	EQ(in_other(other_timed, &d), ETIMEDOUT);
	CK(conf_ms_since(&t0) >= 49);
	EQ(pthread_mutex_unlock(&m), 0);
	/* A free mutex with a bad deadline: glibc takes it. */
	bad.tv_nsec = 1000000000;
	EQ(pthread_mutex_timedlock(&m, &bad), 0);
	pthread_mutex_unlock(&m);
	/* A waiter gets the lock when it is released in time. */
	pthread_mutex_lock(&m);
	d = conf_after(CLOCK_REALTIME, 5000);
	pthread_t t = conf_start(other_timed, &d);
	conf_msleep(20);
	pthread_mutex_unlock(&m);
	void *r = NULL;
	pthread_join(t, &r);
	EQ((long)r, 0);
	pthread_mutex_init(&m, NULL);
}

/* Mutual exclusion: four threads, 20000 increments. */
static long counter;
static void *adder(void *a)
{
	(void)a;
	for (int i = 0; i < 5000; i++) {
		pthread_mutex_lock(&m);
		long v = counter;
		if (i % 64 == 0)
			sched_yield();
		counter = v + 1;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void exclusion(void)
{
	pthread_t t[4];
	int types[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_RECURSIVE };
	for (int k = 0; k < 3; k++) {
		init_type(types[k]);
		counter = 0;
		for (int i = 0; i < 4; i++)
			t[i] = conf_start(adder, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		EQ(counter, 20000);
		pthread_mutex_destroy(&m);
	}
}

static void *above_ceiling(void *a)
{
	struct sched_param p = { .sched_priority = 50 };
	(void)a;
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
	int r = pthread_mutex_lock(&m);
	if (r == 0)
		pthread_mutex_unlock(&m);
	int t = pthread_mutex_trylock(&m);
	if (t == 0)
		pthread_mutex_unlock(&m);
	return (void *)(long)(r == t ? r : -1);
}

static void ceilings(void)
{
	int v;
	pthread_mutexattr_t a;
	pthread_mutex_init(&m, NULL);
	EQ(pthread_mutex_getprioceiling(&m, &v), EINVAL);   /* glibc: not PROTECT */
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT);
	pthread_mutexattr_setprioceiling(&a, 20);
	EQ(pthread_mutex_init(&m, &a), 0);
	EQ(pthread_mutex_getprioceiling(&m, &v), 0);
	EQ(v, 20);
	int old = -1;
	EQ(pthread_mutex_setprioceiling(&m, 30, &old), 0);
	EQ(old, 20);
	pthread_mutex_getprioceiling(&m, &v);
	EQ(v, 30);
	EQ(pthread_mutex_lock(&m), 0);
	EQ(pthread_mutex_unlock(&m), 0);
	/* A caller above the ceiling: EINVAL (glibc, POSIX). */
	void *r = NULL;
	pthread_join(conf_start(above_ceiling, NULL), &r);
	EQ((long)r, EINVAL);
	pthread_mutex_destroy(&m);
	pthread_mutexattr_destroy(&a);
}

void area_mutex(void)
{
	attrs();
	normal();
	errorcheck();
	recursive();
	timed();
	exclusion();
	ceilings();
}
