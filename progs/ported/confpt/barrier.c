/* pthread_barrier_* (PTHREAD_BARRIER_SERIAL_THREAD once a round) and
   pthread_spin_*. */
#include "conf.h"

enum { N = 5, ROUNDS = 4 };
static pthread_barrier_t b;
static int serial[ROUNDS], zero[ROUNDS], other_rc;
static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;

static void *arrive(void *a)
{
	(void)a;
	for (int r = 0; r < ROUNDS; r++) {
		int rc = pthread_barrier_wait(&b);
		pthread_mutex_lock(&lk);
		if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
			serial[r]++;
		else if (rc == 0)
			zero[r]++;
		else
			other_rc++;
		pthread_mutex_unlock(&lk);
	}
	return NULL;
}

static void barriers(void)
{
	pthread_barrierattr_t a;
	pthread_t t[N];
	int v;
	EQ(pthread_barrierattr_init(&a), 0);
	EQ(pthread_barrierattr_getpshared(&a, &v), 0);
	EQ(v, PTHREAD_PROCESS_PRIVATE);
	EQ(pthread_barrierattr_setpshared(&a, 12345), EINVAL);
	EQ(pthread_barrier_init(&b, &a, 0), EINVAL);
	EQ(pthread_barrier_init(&b, NULL, 0), EINVAL);
	EQ(pthread_barrier_init(&b, &a, 1), 0);
	EQ(pthread_barrier_wait(&b), PTHREAD_BARRIER_SERIAL_THREAD);
	EQ(pthread_barrier_wait(&b), PTHREAD_BARRIER_SERIAL_THREAD);
	EQ(pthread_barrier_destroy(&b), 0);
	pthread_barrierattr_destroy(&a);
	CK(PTHREAD_BARRIER_SERIAL_THREAD != 0);
	EQ(pthread_barrier_init(&b, NULL, N), 0);
	for (int i = 0; i < N; i++)
		t[i] = conf_start(arrive, NULL);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	for (int r = 0; r < ROUNDS; r++) {
		EQ(serial[r], 1);
		EQ(zero[r], N - 1);
	}
	EQ(other_rc, 0);
	EQ(pthread_barrier_destroy(&b), 0);
}

static pthread_spinlock_t s;
static long count;
static void *spin_add(void *a)
{
	(void)a;
	for (int i = 0; i < 20000; i++) {
		pthread_spin_lock(&s);
		count++;
		pthread_spin_unlock(&s);
	}
	return NULL;
}

static void *spin_try(void *a)
{
	(void)a;
	return (void *)(long)pthread_spin_trylock(&s);
}

static void spins(void)
{
	pthread_t t[4];
	void *r = NULL;
	EQ(pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE), 0);
	EQ(pthread_spin_lock(&s), 0);
	EQ(pthread_spin_trylock(&s), EBUSY);
	pthread_join(conf_start(spin_try, NULL), &r);
	EQ((long)r, EBUSY);
	EQ(pthread_spin_unlock(&s), 0);
	EQ(pthread_spin_trylock(&s), 0);
	EQ(pthread_spin_unlock(&s), 0);
	EQ(pthread_spin_destroy(&s), 0);
	EQ(pthread_spin_init(&s, PTHREAD_PROCESS_SHARED), 0);
	for (int i = 0; i < 4; i++)
		t[i] = conf_start(spin_add, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	EQ(count, 80000);
	EQ(pthread_spin_destroy(&s), 0);
}

void area_barrier(void)
{
	barriers();
	spins();
}
