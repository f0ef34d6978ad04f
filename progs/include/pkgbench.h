/*
 * Per-package microbenchmarks, one source for every package: the program
 * progs/bench/pkgbench.c, `pkgbench PKG [MODE]`. On one VP; medians of RUNS batches, each batch the
 * mean over BATCH operations, timed with rdtsc.
 *
 *   <pkg>.yield               one thread_yield() handing the VP to another thread
 *   <pkg>.create_join         create a null thread, run it, join it
 *   <pkg>.mutex_uncontended   umutex_lock + umutex_unlock, nobody else around
 *   <pkg>.signal_wait         one signal-wait hand-off: a thread posts a
 *                             semaphore another waits on, then waits itself
 *                             (half a ping-pong round trip)
 *
 * The program's second argument picks how figures are reported:
 *   (none)  guest instructions: run it under `-icount shift=0`, where rdtsc
 *           counts exactly one per instruction (unit "instructions")
 *   wall    nanoseconds, for runs without icount: the TSC then runs at the
 *           host's rate, and the kernel's calibrated tsc_hz converts
 *           (unit "ns", fractional)
 *   demo    nanoseconds of one batch each, as one plain table row, for
 *           progs/demos/demo.c (`make run` must stay quick)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/sync.h>
#include <animart/pkg.h>
#include <animalib/result.h>

#define RUNS  9                 /* batches (the demo times fewer: pb_runs) */
#define BATCH 200
#define DEMO_BATCH 40           /* the demo's batch: `make run` must stay quick */

/* Each benchmark takes its batch size as an argument but is always
   inlined into a caller that passes a constant, so its timed loop
   compiles exactly as with a literal bound (a variable bound costs the
   loop an instruction, which would show in the figures). */
#define PB_BENCH static inline __attribute__((always_inline)) void

enum { PB_ICOUNT, PB_WALL, PB_DEMO };
static int pb_mode;
static int pb_runs = RUNS;               /* batches timed; the median is reported */
static double pb_row[4];                 /* demo: ns per operation, in bench order */
static int pb_nrow;

static const struct pkg *B;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* per[] holds each batch's raw tick count; `ops` operations per batch.
   (Dividing after sorting gives exactly the figures of dividing first:
   floor(x / ops) is monotonic in x.) */
static void report(const char *what, uint64_t *per, uint64_t ops)
{
	char name[64];
	struct result r;
	double ns = 0;                   /* per tick and operation; icount: unused */

	if (pb_mode != PB_ICOUNT)
		ns = 1e9 / (double)sys_getinfo(INFO_TSC_HZ) / (double)ops;
	qsort(per, pb_runs, sizeof per[0], cmp_u64);
	if (pb_mode == PB_DEMO) {
		pb_row[pb_nrow++] = per[pb_runs / 2] * ns;
		return;
	}
	snprintf(name, sizeof name, "%s.%s", B->name, what);
	result_begin(&r, name);
	result_str(&r, "package", B->name);
	if (pb_mode == PB_ICOUNT) {
		result_str(&r, "unit", "instructions");
		result_uint(&r, "value", per[pb_runs / 2] / ops);
		result_uint(&r, "min", per[0] / ops);
		result_uint(&r, "max", per[pb_runs - 1] / ops);
	} else {
		result_str(&r, "unit", "ns");
		result_double(&r, "value", per[pb_runs / 2] * ns);
		result_double(&r, "min", per[0] * ns);
		result_double(&r, "max", per[pb_runs - 1] * ns);
		result_uint(&r, "tsc_hz", (uint64_t)sys_getinfo(INFO_TSC_HZ));
	}
	result_int(&r, "runs", pb_runs);
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

PB_BENCH bench_yield(const int batch)
{
	uint64_t per[RUNS];
	stop_yield = 0;
	struct thread *other = B->create(yielder, 0, 0);
	thread_yield();                  /* let it start */
	for (int r = 0; r < pb_runs; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < batch; i += 4) {
			thread_yield();      /* to the yielder and back: two yields */
			thread_yield();
			thread_yield();
			thread_yield();
		}
		per[r] = rdtsc() - t0;
	}
	stop_yield = 1;
	thread_join(other);
	report("yield", per, 2 * batch);
}

static void *null_thread(void *arg)
{
	return arg;
}

PB_BENCH bench_create_join(const int batch)
{
	uint64_t per[RUNS];
	thread_join(B->create(null_thread, 0, 0));   /* warm the allocator */
	for (int r = 0; r < pb_runs; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < batch; i++)
			thread_join(B->create(null_thread, 0, 0));
		per[r] = rdtsc() - t0;
	}
	report("create_join", per, batch);
}

PB_BENCH bench_mutex(const int batch)
{
	static struct mutex m;
	uint64_t per[RUNS];
	for (int r = 0; r < pb_runs; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < batch; i++) {
			umutex_lock(&m);
			umutex_unlock(&m);
		}
		per[r] = rdtsc() - t0;
	}
	report("mutex_uncontended", per, batch);
}

static struct sem ping, pong;

static void *ponger(void *arg)
{
	int n = (int)(intptr_t)arg;
	for (int i = 0; i < n; i++) {
		usem_wait(&ping);
		usem_post(&pong);
	}
	return 0;
}

PB_BENCH bench_signal_wait(const int batch)
{
	uint64_t per[RUNS];
	usem_init(&ping, 0);
	usem_init(&pong, 0);
	struct thread *t = B->create(ponger, (void *)(intptr_t)(pb_runs * batch + 1), 0);
	usem_post(&ping);                 /* warm up one round */
	usem_wait(&pong);
	for (int r = 0; r < pb_runs; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < batch; i++) {
			usem_post(&ping);
			usem_wait(&pong);
		}
		per[r] = rdtsc() - t0;
	}
	thread_join(t);
	report("signal_wait", per, 2 * batch);
}

static __attribute__((noinline)) void bench_all(void)
{
	bench_yield(BATCH);
	bench_create_join(BATCH);
	bench_mutex(BATCH);
	bench_signal_wait(BATCH);
}

static __attribute__((noinline)) void bench_all_demo(void)
{
	bench_yield(DEMO_BATCH);
	bench_create_join(DEMO_BATCH);
	bench_mutex(DEMO_BATCH);
	bench_signal_wait(DEMO_BATCH);
}

static void *bench_main(void *arg)
{
	(void)arg;
	if (pb_mode == PB_DEMO)
		bench_all_demo();
	else
		bench_all();
	if (pb_mode == PB_DEMO)
		printf("  %-10s %10.1f %12.1f %10.1f %12.1f\n", B->name,
		       pb_row[0], pb_row[1], pb_row[2], pb_row[3]);
	return 0;
}

/* mode: 0 (icount), "wall" or "demo" */
__attribute__((noreturn)) static void pkgbench_main(const struct pkg *p, const char *mode)
{
	B = p;
	if (mode && !strcmp(mode, "wall"))
		pb_mode = PB_WALL;
	else if (mode && !strcmp(mode, "demo")) {
		pb_mode = PB_DEMO;
		pb_runs = 1;             /* one batch of DEMO_BATCH each */
	}
	p->run(1, bench_main, 0);
}
