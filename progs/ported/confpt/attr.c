/* pthread_attr_*: every get and set, defaults and EINVAL cases (glibc's
   values: 8 MiB stack from RLIMIT_STACK, a page of guard, the guard size
   kept as given and rounded only at create). */
#include "conf.h"
#include <limits.h>

static void *ret_arg(void *a)
{
	return a;
}

static void defaults(void)
{
	pthread_attr_t a;
	int v;
	size_t n;
	struct sched_param sp = { .sched_priority = 7 };
	EQ(pthread_attr_init(&a), 0);
	EQ(pthread_attr_getdetachstate(&a, &v), 0);
	EQ(v, PTHREAD_CREATE_JOINABLE);
	EQ(pthread_attr_getinheritsched(&a, &v), 0);
	EQ(v, PTHREAD_INHERIT_SCHED);
	EQ(pthread_attr_getscope(&a, &v), 0);
	EQ(v, PTHREAD_SCOPE_SYSTEM);
	EQ(pthread_attr_getschedpolicy(&a, &v), 0);
	EQ(v, SCHED_OTHER);
	EQ(pthread_attr_getschedparam(&a, &sp), 0);
	EQ(sp.sched_priority, 0);
	EQ(pthread_attr_getguardsize(&a, &n), 0);
	EQ(n, sysconf(_SC_PAGESIZE));
	EQ(pthread_attr_getstacksize(&a, &n), 0);
	CK(n >= PTHREAD_STACK_MIN);
	EQ(pthread_attr_destroy(&a), 0);
}

static void sets(void)
{
	pthread_attr_t a;
	int v;
	size_t n;
	struct sched_param sp;
	pthread_attr_init(&a);
	EQ(pthread_attr_setdetachstate(&a, 12345), EINVAL);
	EQ(pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED), 0);
	pthread_attr_getdetachstate(&a, &v);
	EQ(v, PTHREAD_CREATE_DETACHED);
	EQ(pthread_attr_setinheritsched(&a, 12345), EINVAL);
	EQ(pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED), 0);
	pthread_attr_getinheritsched(&a, &v);
	EQ(v, PTHREAD_EXPLICIT_SCHED);
	EQ(pthread_attr_setscope(&a, 12345), EINVAL);
	EQ(pthread_attr_setscope(&a, PTHREAD_SCOPE_PROCESS), ENOTSUP);
	EQ(pthread_attr_setscope(&a, PTHREAD_SCOPE_SYSTEM), 0);
	EQ(pthread_attr_setschedpolicy(&a, 12345), EINVAL);
	EQ(pthread_attr_setschedpolicy(&a, SCHED_RR), 0);
	pthread_attr_getschedpolicy(&a, &v);
	EQ(v, SCHED_RR);
	EQ(pthread_attr_setschedpolicy(&a, SCHED_FIFO), 0);
	pthread_attr_getschedpolicy(&a, &v);
	EQ(v, SCHED_FIFO);
	sp.sched_priority = sched_get_priority_max(SCHED_FIFO) + 1;
	EQ(pthread_attr_setschedparam(&a, &sp), EINVAL);
	sp.sched_priority = sched_get_priority_min(SCHED_FIFO);
	EQ(pthread_attr_setschedparam(&a, &sp), 0);
	sp.sched_priority = -1;
	pthread_attr_getschedparam(&a, &sp);
	EQ(sp.sched_priority, sched_get_priority_min(SCHED_FIFO));
	EQ(pthread_attr_setguardsize(&a, 0), 0);
	pthread_attr_getguardsize(&a, &n);
	EQ(n, 0);
	EQ(pthread_attr_setguardsize(&a, 12345), 0);
	pthread_attr_getguardsize(&a, &n);
	EQ(n, 12345);
	EQ(pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN - 1), EINVAL);
	EQ(pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN), 0);
	pthread_attr_getstacksize(&a, &n);
	EQ(n, PTHREAD_STACK_MIN);
	EQ(pthread_attr_setstacksize(&a, 1 << 20), 0);
	pthread_attr_getstacksize(&a, &n);
	EQ(n, 1 << 20);
	pthread_attr_destroy(&a);
}

/* A stack the program gives: the thread runs on it. */
static char *given;
static void *where(void *a)
{
	char here;
	(void)a;
	return (void *)(long)(&here > given && &here < given + (256 << 10));
}

static void stack(void)
{
	pthread_attr_t a;
	void *p;
	size_t n;
	pthread_t t;
	void *r = NULL;
	pthread_attr_init(&a);
	given = malloc(256 << 10);
	EQ(pthread_attr_setstack(&a, given, PTHREAD_STACK_MIN - 1), EINVAL);
	EQ(pthread_attr_setstack(&a, given, 256 << 10), 0);
	EQ(pthread_attr_getstack(&a, &p, &n), 0);
	CK(p == given);
	EQ(n, 256 << 10);
	pthread_attr_getstacksize(&a, &n);
	EQ(n, 256 << 10);
	EQ(pthread_create(&t, &a, where, NULL), 0);
	EQ(pthread_join(t, &r), 0);
	EQ((long)r, 1);
	pthread_attr_destroy(&a);
	free(given);
}

/* Threads made with each attribute run and return their argument;
   a detached one cannot be joined. */
static sem_t ran;
static void *post_ran(void *a)
{
	sem_post(&ran);
	return a;
}

static void creates(void)
{
	pthread_attr_t a;
	pthread_t t;
	void *r = NULL;
	struct sched_param sp = { .sched_priority = 10 };
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN);
	EQ(pthread_create(&t, &a, ret_arg, (void *)42L), 0);
	EQ(pthread_join(t, &r), 0);
	EQ((long)r, 42);
	pthread_attr_setstacksize(&a, 4 << 20);
	pthread_attr_setguardsize(&a, 3 * 4096 + 1);
	EQ(pthread_create(&t, &a, ret_arg, (void *)43L), 0);
	EQ(pthread_join(t, &r), 0);
	EQ((long)r, 43);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_RR);
	pthread_attr_setschedparam(&a, &sp);
	EQ(pthread_create(&t, &a, ret_arg, (void *)44L), 0);
	EQ(pthread_join(t, &r), 0);
	EQ((long)r, 44);
	pthread_attr_destroy(&a);
	sem_init(&ran, 0, 0);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	EQ(pthread_create(&t, &a, post_ran, NULL), 0);
	EQ(sem_wait(&ran), 0);
	pthread_attr_destroy(&a);
	/* glibc: create with a NULL attribute is the defaults. */
	EQ(pthread_create(&t, NULL, ret_arg, (void *)45L), 0);
	EQ(pthread_join(t, &r), 0);
	EQ((long)r, 45);
}

/* pthread_getschedparam reports what an explicit attribute gave. */
static void *report_sched(void *a)
{
	int pol;
	struct sched_param sp;
	(void)a;
	pthread_getschedparam(pthread_self(), &pol, &sp);
	return (void *)(long)(pol * 1000 + sp.sched_priority);
}

static void explicit_sched(void)
{
	pthread_attr_t a;
	pthread_t t;
	void *r = NULL;
	struct sched_param sp = { .sched_priority = 30 };
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	EQ(pthread_create(&t, &a, report_sched, NULL), 0);
	pthread_join(t, &r);
	EQ((long)r, SCHED_FIFO * 1000 + 30);
	/* Inherited (the default): main's own, SCHED_OTHER 0. */
	pthread_attr_setinheritsched(&a, PTHREAD_INHERIT_SCHED);
	EQ(pthread_create(&t, &a, report_sched, NULL), 0);
	pthread_join(t, &r);
	EQ((long)r, SCHED_OTHER * 1000 + 0);
	pthread_attr_destroy(&a);
}

void area_attr(void)
{
	defaults();
	sets();
	stack();
	creates();
	explicit_sched();
}
