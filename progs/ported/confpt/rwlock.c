/* pthread_rwlock_*: shared and exclusive holds, try and timed forms,
   EDEADLK where glibc gives it (a writer relocking, or read-locking,
   its own lock), EINVAL for a bad deadline when it must wait. */
#include "conf.h"

static pthread_rwlock_t l;
static struct timespec dl;

static void *o_tryrd(void *a) { (void)a; return (void *)(long)pthread_rwlock_tryrdlock(&l); }
static void *o_trywr(void *a) { (void)a; return (void *)(long)pthread_rwlock_trywrlock(&l); }
static void *o_timedrd(void *a) { (void)a; return (void *)(long)pthread_rwlock_timedrdlock(&l, &dl); }
static void *o_timedwr(void *a) { (void)a; return (void *)(long)pthread_rwlock_timedwrlock(&l, &dl); }

static long other(void *(*fn)(void *))
{
	void *r = NULL;
	pthread_join(conf_start(fn, NULL), &r);
	/* It may hold the lock now: our checks only read its answer. */
	return (long)r;
}

static void attrs(void)
{
	pthread_rwlockattr_t a;
	int v;
	EQ(pthread_rwlockattr_init(&a), 0);
	EQ(pthread_rwlockattr_getpshared(&a, &v), 0);
	EQ(v, PTHREAD_PROCESS_PRIVATE);
	EQ(pthread_rwlockattr_setpshared(&a, 12345), EINVAL);
	EQ(pthread_rwlockattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
	pthread_rwlockattr_getpshared(&a, &v);
	EQ(v, PTHREAD_PROCESS_SHARED);
	EQ(pthread_rwlockattr_destroy(&a), 0);
}

static void shared(void)
{
	static pthread_rwlock_t st = PTHREAD_RWLOCK_INITIALIZER;
	EQ(pthread_rwlock_rdlock(&st), 0);
	EQ(pthread_rwlock_unlock(&st), 0);
	EQ(pthread_rwlock_init(&l, NULL), 0);
	EQ(pthread_rwlock_rdlock(&l), 0);
	EQ(pthread_rwlock_rdlock(&l), 0);   /* readers preferred: again */
	EQ(pthread_rwlock_tryrdlock(&l), 0);
	EQ(other(o_tryrd), 0);
	EQ(other(o_trywr), EBUSY);
	dl = conf_after(CLOCK_REALTIME, -10);
	EQ(other(o_timedwr), ETIMEDOUT);
	dl.tv_nsec = 1000000000;
	EQ(other(o_timedwr), EINVAL);
	dl = conf_after(CLOCK_REALTIME, -10);
	EQ(other(o_timedrd), 0);   /* readers share */
	for (int i = 0; i < 3; i++)
		EQ(pthread_rwlock_unlock(&l), 0);
	/* The other threads ended holding two reads: free them anew. */
	pthread_rwlock_destroy(&l);
	pthread_rwlock_init(&l, NULL);
}

static void exclusive(void)
{
	struct timespec t0;
	EQ(pthread_rwlock_wrlock(&l), 0);
	EQ(pthread_rwlock_wrlock(&l), EDEADLK);
	EQ(pthread_rwlock_rdlock(&l), EDEADLK);
	EQ(pthread_rwlock_trywrlock(&l), EBUSY);
	EQ(pthread_rwlock_tryrdlock(&l), EBUSY);
	dl = conf_after(CLOCK_REALTIME, 10);
	EQ(pthread_rwlock_timedwrlock(&l, &dl), EDEADLK);
	EQ(pthread_rwlock_timedrdlock(&l, &dl), EDEADLK);
	EQ(other(o_tryrd), EBUSY);
	EQ(other(o_trywr), EBUSY);
	dl = conf_after(CLOCK_REALTIME, -10);
	EQ(other(o_timedrd), ETIMEDOUT);
	EQ(other(o_timedwr), ETIMEDOUT);
	dl.tv_nsec = -1;
	EQ(other(o_timedrd), EINVAL);
	EQ(other(o_timedwr), EINVAL);
	t0 = conf_now();
	dl = conf_after(CLOCK_REALTIME, 30);
	EQ(other(o_timedrd), ETIMEDOUT);
	CK(conf_ms_since(&t0) >= 29);
	EQ(pthread_rwlock_unlock(&l), 0);
	EQ(pthread_rwlock_trywrlock(&l), 0);
	EQ(pthread_rwlock_unlock(&l), 0);
	EQ(pthread_rwlock_destroy(&l), 0);
}

/* A writer waits for the readers, then gets in. */
static int wrote;
static void *writer(void *a)
{
	(void)a;
	int r = pthread_rwlock_wrlock(&l);
	wrote = 1;
	pthread_rwlock_unlock(&l);
	return (void *)(long)r;
}

static void handoff(void)
{
	void *r = (void *)-1L;
	pthread_rwlock_init(&l, NULL);
	wrote = 0;
	pthread_rwlock_rdlock(&l);
	pthread_t t = conf_start(writer, NULL);
	conf_msleep(20);
	EQ(wrote, 0);
	pthread_rwlock_unlock(&l);
	pthread_join(t, &r);
	EQ((long)r, 0);
	EQ(wrote, 1);
	pthread_rwlock_destroy(&l);
}

void area_rwlock(void)
{
	attrs();
	shared();
	exclusive();
	handoff();
}
