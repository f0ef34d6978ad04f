/*
 * pbench: what the POSIX layer costs over the thread interface it is
 * built on, in one program on one package (pkg=NAME vps=1, under
 * `--icount`: rdtsc counts instructions). Medians of RUNS batches:
 *
 *   posix.<pkg>.condpingpong   one round trip of a mutex+condition
 *                              ping-pong between two threads, pthreads
 *   native.<pkg>.condpingpong  the same with <animart/sync.h> (umutex/ucond)
 *   posix.<pkg>.create_join    pthread_create + pthread_join of a null thread
 *   native.<pkg>.create_join   pkg->create + thread_join
 *   posix.<pkg>.overhead       posix / native for both (target: <= 1.10)
 *
 * Both sides run with TLS on (the POSIX start turns it on), so the ratio
 * is the layer's own cost; what TLS adds to a switch is pkgbench's
 * figures against this program's native ones.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <animart/clock.h>
#include <animart/sync.h>
#include <animart/pkg.h>

#define RUNS 9
#define BATCH 200

extern const struct pkg *posix_pkg;

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *per)
{
	qsort(per, RUNS, sizeof per[0], cmp);
	return per[RUNS / 2] / BATCH;
}

static void report(const char *side, const char *what, uint64_t v)
{
	printf("@result {\"name\": \"%s.%s.%s\", \"package\": \"%s\", \"unit\": \"instructions\", "
	       "\"value\": %lu, \"runs\": %d, \"batch\": %d}\n", side, posix_pkg->name, what,
	       posix_pkg->name, v, RUNS, BATCH);
}

/* ---- pthreads ---- */

static pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pc = PTHREAD_COND_INITIALIZER;
static volatile int pturn;

static void *p_pong(void *a)
{
	for (long i = 0; i < (long)a; i++) {
		pthread_mutex_lock(&pm);
		while (pturn != 1)
			pthread_cond_wait(&pc, &pm);
		pturn = 0;
		pthread_cond_signal(&pc);
		pthread_mutex_unlock(&pm);
	}
	return 0;
}

static inline void p_round(void)
{
	pthread_mutex_lock(&pm);
	pturn = 1;
	pthread_cond_signal(&pc);
	while (pturn != 0)
		pthread_cond_wait(&pc, &pm);
	pthread_mutex_unlock(&pm);
}

static uint64_t posix_pingpong(void)
{
	uint64_t per[RUNS];
	pthread_t t;
	pthread_create(&t, 0, p_pong, (void *)(long)(RUNS * BATCH + 1));
	p_round();
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < BATCH; i++)
			p_round();
		per[r] = rdtsc() - t0;
	}
	pthread_join(t, 0);
	return median(per);
}

static void *null_thread(void *a)
{
	return a;
}

static uint64_t posix_create_join(void)
{
	uint64_t per[RUNS];
	pthread_t t;
	pthread_create(&t, 0, null_thread, 0);
	pthread_join(t, 0);
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < BATCH; i++) {
			pthread_create(&t, 0, null_thread, 0);
			pthread_join(t, 0);
		}
		per[r] = rdtsc() - t0;
	}
	return median(per);
}

/* ---- the interface (<animart/sync.h>, struct pkg) ---- */

static struct mutex nm;
static struct cond nc;
static volatile int nturn;

static void *n_pong(void *a)
{
	for (long i = 0; i < (long)a; i++) {
		umutex_lock(&nm);
		while (nturn != 1)
			ucond_wait(&nc, &nm);
		nturn = 0;
		ucond_signal(&nc);
		umutex_unlock(&nm);
	}
	return 0;
}

static inline void n_round(void)
{
	umutex_lock(&nm);
	nturn = 1;
	ucond_signal(&nc);
	while (nturn != 0)
		ucond_wait(&nc, &nm);
	umutex_unlock(&nm);
}

static uint64_t native_pingpong(void)
{
	uint64_t per[RUNS];
	struct thread *t = posix_pkg->create(n_pong, (void *)(long)(RUNS * BATCH + 1), 0);
	n_round();
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < BATCH; i++)
			n_round();
		per[r] = rdtsc() - t0;
	}
	thread_join(t);
	return median(per);
}

static uint64_t native_create_join(void)
{
	uint64_t per[RUNS];
	thread_join(posix_pkg->create(null_thread, 0, 0));
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < BATCH; i++)
			thread_join(posix_pkg->create(null_thread, 0, 0));
		per[r] = rdtsc() - t0;
	}
	return median(per);
}

int main(void)
{
	uint64_t np = native_pingpong(), pp = posix_pingpong();
	uint64_t nc_ = native_create_join(), pc_ = posix_create_join();
	report("native", "condpingpong", np);
	report("posix", "condpingpong", pp);
	report("native", "create_join", nc_);
	report("posix", "create_join", pc_);
	printf("@result {\"name\": \"posix.%s.overhead\", \"package\": \"%s\", "
	       "\"condpingpong\": %.3f, \"create_join\": %.3f}\n", posix_pkg->name,
	       posix_pkg->name, (double)pp / (double)np, (double)pc_ / (double)nc_);
	return 0;
}
