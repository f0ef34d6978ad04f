/* pthread_key_*: values per thread, destructors, their rounds
   (PTHREAD_DESTRUCTOR_ITERATIONS, 4 in glibc), deletion. */
#include "conf.h"
#include <limits.h>

static pthread_key_t k1, k2, kre;
static int d1_calls, d1_null, re_calls;
static long d1_sum;

static void d1(void *v)
{
	d1_calls++;
	d1_sum += (long)v;
	if (!v)
		d1_null++;
}

/* A destructor that sets its value again: called once a round. */
static void dre(void *v)
{
	re_calls++;
	pthread_setspecific(kre, v);
}

static void *keyed(void *a)
{
	void *mine = pthread_getspecific(k1);
	pthread_setspecific(k1, a);
	pthread_setspecific(k2, (void *)1L);
	pthread_setspecific(k2, NULL);   /* NULL: no destructor for k2 */
	return (void *)(long)(mine == NULL && pthread_getspecific(k1) == a);
}

static void *set_re(void *a)
{
	pthread_setspecific(kre, a);
	return NULL;
}

static void *exits_keyed(void *a)
{
	pthread_setspecific(k1, a);
	pthread_exit(NULL);
}

/* A cancelled thread's values get their destructors too. */
static sem_t parked;
static void *keyed_then_wait(void *a)
{
	pthread_setspecific(k1, a);
	sem_wait(&parked);   /* cancelled here */
	return NULL;
}

static void cancelled_keys(void)
{
	void *r = NULL;
	d1_calls = 0;
	d1_sum = 0;
	sem_init(&parked, 0, 0);
	pthread_t t = conf_start(keyed_then_wait, (void *)70L);
	conf_msleep(20);
	pthread_cancel(t);
	pthread_join(t, &r);
	CK(r == PTHREAD_CANCELED);
	EQ(d1_calls, 1);
	EQ(d1_sum, 70);
}

void area_keys(void)
{
	pthread_t t[3];
	void *r = NULL;
	EQ(pthread_key_create(&k1, d1), 0);
	EQ(pthread_key_create(&k2, d1), 0);
	CK(k1 != k2);
	CK(pthread_getspecific(k1) == NULL);
	EQ(pthread_setspecific(k1, (void *)100L), 0);
	CK(pthread_getspecific(k1) == (void *)100L);
	for (long i = 0; i < 3; i++)
		t[i] = conf_start(keyed, (void *)(i + 1));
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], &r);
		EQ((long)r, 1);
	}
	EQ(d1_calls, 3);
	EQ(d1_sum, 6);
	EQ(d1_null, 0);
	CK(pthread_getspecific(k1) == (void *)100L);   /* main's own */
	t[0] = conf_start(exits_keyed, (void *)50L);
	pthread_join(t[0], NULL);
	EQ(d1_calls, 4);
	EQ(d1_sum, 56);
	/* Rounds of destructors. */
	EQ(pthread_key_create(&kre, dre), 0);
	t[0] = conf_start(set_re, (void *)1L);
	pthread_join(t[0], NULL);
	EQ(re_calls, PTHREAD_DESTRUCTOR_ITERATIONS);
	EQ(PTHREAD_DESTRUCTOR_ITERATIONS, 4);
	EQ(sysconf(_SC_THREAD_DESTRUCTOR_ITERATIONS), 4);
	CK(sysconf(_SC_THREAD_KEYS_MAX) >= 128);
	cancelled_keys();
	/* Deletion runs no destructor; a deleted key is EINVAL (glibc). */
	d1_calls = 0;
	EQ(pthread_key_delete(k2), 0);
	EQ(pthread_key_delete(k1), 0);
	EQ(d1_calls, 0);
	EQ(pthread_key_delete(k1), EINVAL);
	EQ(pthread_setspecific(k1, (void *)1L), EINVAL);
	EQ(pthread_key_delete(kre), 0);
	/* A key made after another was deleted starts NULL everywhere. */
	EQ(pthread_key_create(&k2, NULL), 0);
	CK(pthread_getspecific(k2) == NULL);
	EQ(pthread_key_delete(k2), 0);
}
