/*
 * Per-package microbenchmarks, one source for every package (included by
 * progs/bench_NAME.c). Guest instructions under `-icount shift=0`, where
 * rdtsc counts exactly one per instruction; on one VP; medians of RUNS
 * batches, each batch the mean over BATCH operations.
 *
 *   <pkg>.yield               one thread_yield() handing the VP to another thread
 *   <pkg>.create_join         create a null thread, run it, join it
 *   <pkg>.mutex_uncontended   mutex_lock + mutex_unlock, nobody else around
 *   <pkg>.signal_wait         one signal-wait hand-off: a thread posts a
 *                             semaphore another waits on, then waits itself
 *                             (half a ping-pong round trip)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys.h>
#include <sync.h>
#include <pkg.h>
#include <result.h>

#define RUNS  9
#define BATCH 200

static const struct pkg *B;

static inline uint64_t ticks(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *per)
{
	char name[64];
	qsort(per, RUNS, sizeof per[0], cmp_u64);
	snprintf(name, sizeof name, "%s.%s", B->name, what);
	struct result r;
	result_begin(&r, name);
	result_str(&r, "package", B->name);
	result_str(&r, "unit", "instructions");
	result_uint(&r, "value", per[RUNS / 2]);
	result_uint(&r, "min", per[0]);
	result_uint(&r, "max", per[RUNS - 1]);
	result_int(&r, "runs", RUNS);
	result_int(&r, "batch", BATCH);
	result_end(&r);
}

static volatile int stop_yield;

/* Both loops are unrolled four times so the figure is the yield, not
   the loop around it. */
static void *yielder(void *arg)
{
	(void)arg;
	while (!stop_yield) {
		thread_yield();
		thread_yield();
		thread_yield();
		thread_yield();
	}
	return 0;
}

static void bench_yield(void)
{
	uint64_t per[RUNS];
	stop_yield = 0;
	struct thread *other = B->create(yielder, 0);
	thread_yield();                  /* let it start */
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = ticks();
		for (int i = 0; i < BATCH; i += 4) {
			thread_yield();      /* to the yielder and back: two yields */
			thread_yield();
			thread_yield();
			thread_yield();
		}
		per[r] = (ticks() - t0) / (2 * BATCH);
	}
	stop_yield = 1;
	thread_join(other);
	report("yield", per);
}

static void *null_thread(void *arg)
{
	return arg;
}

static void bench_create_join(void)
{
	uint64_t per[RUNS];
	thread_join(B->create(null_thread, 0));   /* warm the allocator */
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = ticks();
		for (int i = 0; i < BATCH; i++)
			thread_join(B->create(null_thread, 0));
		per[r] = (ticks() - t0) / BATCH;
	}
	report("create_join", per);
}

static void bench_mutex(void)
{
	static struct mutex m;
	uint64_t per[RUNS];
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = ticks();
		for (int i = 0; i < BATCH; i++) {
			mutex_lock(&m);
			mutex_unlock(&m);
		}
		per[r] = (ticks() - t0) / BATCH;
	}
	report("mutex_uncontended", per);
}

static struct sem ping, pong;

static void *ponger(void *arg)
{
	int n = (int)(intptr_t)arg;
	for (int i = 0; i < n; i++) {
		sem_wait(&ping);
		sem_post(&pong);
	}
	return 0;
}

static void bench_signal_wait(void)
{
	uint64_t per[RUNS];
	sem_init(&ping, 0);
	sem_init(&pong, 0);
	struct thread *t = B->create(ponger, (void *)(intptr_t)(RUNS * BATCH + 1));
	sem_post(&ping);                 /* warm up one round */
	sem_wait(&pong);
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = ticks();
		for (int i = 0; i < BATCH; i++) {
			sem_post(&ping);
			sem_wait(&pong);
		}
		per[r] = (ticks() - t0) / (2 * BATCH);
	}
	thread_join(t);
	report("signal_wait", per);
}

static void *bench_main(void *arg)
{
	(void)arg;
	bench_yield();
	bench_create_join();
	bench_mutex();
	bench_signal_wait();
	return 0;
}

__attribute__((noreturn)) static void pkgbench_main(const struct pkg *p)
{
	B = p;
	p->run(1, bench_main, 0);
}
