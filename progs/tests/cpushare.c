/*
 * cpushare PKG THREADS [MS [VPS]]: do compute-bound threads that never
 * yield nor block share the CPUs? THREADS threads of package PKG, on VPS
 * VPs (default one per CPU), each count in a loop of their own (each
 * counter in its own cache lines) until the first thread, which sleeps
 * MS ms (default 200) in the kernel, raises a flag. With more threads than VPs only preemption can
 * share: fifo's time slices move a thread whose slice ends to the
 * shortest queue, so every thread gets about THREADS/VPS of a CPU's time.
 * A package without slices leaves the queued threads at 0.
 *
 * One @result: "counts" (each thread's loop turns), "ratio" (max/min,
 * 0 if some thread never ran), "slices" (fifo's, else 0). Exit status 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include "apppkg.h"
#include "fifo/fifo.h"

#define MAXT 64

static struct counter {
	volatile uint64_t n;
} __attribute__((aligned(128))) cnt[MAXT];
static volatile int go, stop;
static int nthreads, ms = 200, nvps;
static const struct pkg *P;

static void *spinner(void *arg)
{
	struct counter *c = arg;
	while (!go)
		__asm__ volatile("pause");
	while (!stop)
		c->n++;
	return 0;
}

static void *main_fn(void *arg)
{
	(void)arg;
	struct thread *t[MAXT];
	for (int i = 0; i < nthreads; i++)
		t[i] = app_create(P, spinner, &cnt[i]);
	uint64_t s0 = fifo_stats.slices, m0 = fifo_stats.moved, st0 = fifo_stats.steals;
	uint64_t t0 = now_ns(), due = t0 + (uint64_t)ms * 1000000;
	go = 1;
	thread_block_until(due);   /* sleeps in the kernel */
	uint64_t woke = now_ns();
	stop = 1;
	for (int i = 0; i < nthreads; i++)
		thread_join(t[i]);
	uint64_t c[MAXT], lo = ~0UL, hi = 0;
	for (int i = 0; i < nthreads; i++) {
		c[i] = cnt[i].n;
		lo = c[i] < lo ? c[i] : lo;
		hi = c[i] > hi ? c[i] : hi;
	}
	struct result r;
	result_begin(&r, "cpushare");
	result_str(&r, "package", P->name);
	result_int(&r, "threads", nthreads);
	result_int(&r, "vps", nvps);
	result_int(&r, "ms", ms);
	result_uints(&r, "counts", c, nthreads);
	result_double(&r, "ratio", lo ? (double)hi / (double)lo : 0);
	result_uint(&r, "slices", fifo_stats.slices - s0);
	result_uint(&r, "moved", fifo_stats.moved - m0);
	result_uint(&r, "steals", fifo_stats.steals - st0);
	result_uint(&r, "window_ns", woke - t0);
	result_uint(&r, "late_ns", woke - due);
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 3, "cpushare PKG THREADS [MS [VPS]]");
	nthreads = atoi(argv[2]);
	if (argc > 3)
		ms = atoi(argv[3]);
	nvps = argc > 4 ? atoi(argv[4]) : (int)sys_getinfo(INFO_NCPU);
	if (nthreads < 1 || nthreads > MAXT || ms < 1 || nvps < 1 || nvps > MAXVP) {
		printf("cpushare: bad arguments\n");
		return 2;
	}
	P->run(nvps, main_fn, 0);
}
