/* pthread_create, join, detach, exit, self, equal, once. */
#include "conf.h"

static pthread_t seen;
static void *note_self(void *a)
{
	seen = pthread_self();
	return a;
}

static void *exit_with(void *a)
{
	pthread_exit(a);
	return NULL;
}

static void *join_self(void *a)
{
	(void)a;
	return (void *)(long)pthread_join(pthread_self(), NULL);
}

static sem_t go;
static void *wait_go(void *a)
{
	sem_wait(&go);
	return a;
}

/* Cleanup handlers run at pthread_exit, newest first. */
static int order[4], norder;
static void push_n(void *a)
{
	order[norder++] = (int)(long)a;
}

static void *exit_in_cleanup(void *a)
{
	(void)a;
	pthread_cleanup_push(push_n, (void *)1L);
	pthread_cleanup_push(push_n, (void *)2L);
	pthread_cleanup_push(push_n, (void *)3L);
	pthread_exit((void *)9L);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *pop_exec(void *a)
{
	(void)a;
	pthread_cleanup_push(push_n, (void *)5L);
	pthread_cleanup_push(push_n, (void *)6L);
	pthread_cleanup_pop(1);   /* runs 6 */
	pthread_cleanup_pop(0);   /* 5 does not run */
	return NULL;
}

static void basics(void)
{
	pthread_t t;
	void *r = NULL;
	CK(pthread_equal(pthread_self(), pthread_self()));
	EQ(pthread_create(&t, NULL, note_self, (void *)7L), 0);
	EQ(pthread_join(t, &r), 0);
	EQ((long)r, 7);
	CK(pthread_equal(t, seen));
	CK(!pthread_equal(t, pthread_self()));
	EQ(pthread_create(&t, NULL, exit_with, (void *)8L), 0);
	EQ(pthread_join(t, &r), 0);
	EQ((long)r, 8);
	EQ(pthread_join(pthread_self(), NULL), EDEADLK);
	EQ(pthread_create(&t, NULL, join_self, NULL), 0);
	pthread_join(t, &r);
	EQ((long)r, EDEADLK);
	/* join with a NULL value pointer */
	EQ(pthread_create(&t, NULL, note_self, NULL), 0);
	EQ(pthread_join(t, NULL), 0);
	norder = 0;
	EQ(pthread_create(&t, NULL, exit_in_cleanup, NULL), 0);
	pthread_join(t, &r);
	EQ((long)r, 9);
	EQ(norder, 3);
	CK(order[0] == 3 && order[1] == 2 && order[2] == 1);
	norder = 0;
	EQ(pthread_create(&t, NULL, pop_exec, NULL), 0);
	pthread_join(t, NULL);
	EQ(norder, 1);
	EQ(order[0], 6);
}

static void detach(void)
{
	pthread_t t;
	void *r;
	sem_init(&go, 0, 0);
	EQ(pthread_create(&t, NULL, wait_go, NULL), 0);
	EQ(pthread_detach(t), 0);
	/* glibc: a detached thread that has not ended is not joinable,
	   and detaching it again is EINVAL. */
	EQ(pthread_detach(t), EINVAL);
	EQ(pthread_join(t, &r), EINVAL);
	sem_post(&go);
	/* A thread that detaches itself. */
	EQ(pthread_create(&t, NULL, wait_go, NULL), 0);
	EQ(pthread_detach(t), 0);
	sem_post(&go);
	conf_msleep(10);
	/* A thread that has ended, not joined: detach reclaims it. */
	EQ(pthread_create(&t, NULL, note_self, NULL), 0);
	conf_msleep(10);
	EQ(pthread_detach(t), 0);
}

/* Many threads at once, each joined, in any order. */
static void *square(void *a)
{
	long v = (long)a;
	sched_yield();
	return (void *)(v * v);
}

static void many(void)
{
	enum { N = 64 };
	pthread_t t[N];
	int bad = 0;
	for (long i = 0; i < N; i++)
		EQ(pthread_create(&t[i], NULL, square, (void *)i), 0);
	for (long i = N - 1; i >= 0; i--) {
		void *r;
		if (pthread_join(t[i], &r) || (long)r != i * i)
			bad++;
	}
	EQ(bad, 0);
}

/* pthread_once: one call, whoever calls; the others wait for it. */
static pthread_once_t once = PTHREAD_ONCE_INIT, once2 = PTHREAD_ONCE_INIT;
static int once_runs, once_done;
static void once_fn(void)
{
	once_runs++;
	conf_msleep(20);
	once_done = 1;
}

static void *call_once(void *a)
{
	(void)a;
	pthread_once(&once2, once_fn);
	return (void *)(long)once_done;
}

static void run_once(void)
{
	pthread_t t[4];
	EQ(pthread_once(&once, once_fn), 0);
	EQ(pthread_once(&once, once_fn), 0);
	EQ(once_runs, 1);
	once_runs = once_done = 0;
	for (int i = 0; i < 4; i++)
		t[i] = conf_start(call_once, NULL);
	for (int i = 0; i < 4; i++) {
		void *r = NULL;
		pthread_join(t[i], &r);
		EQ((long)r, 1);   /* each returned after the routine ended */
	}
	EQ(once_runs, 1);
}

void area_thread(void)
{
	basics();
	detach();
	many();
	run_once();
}
