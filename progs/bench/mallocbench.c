/*
 * mallocbench MODE VPS THREADS PAIRS: how malloc scales across VPs.
 * THREADS fifo threads on VPS VPs each malloc a block of 16 B to 1 KiB
 * (random) and free the one they allocated 16 steps before, PAIRS times
 * in all. MODE `cached` uses malloc as it is (per-VP caches); `central`
 * sets malloc_central_only, so every malloc and free takes its class's
 * lock, as before the caches. Run the four combinations in one boot
 * (make bench: wall clock, -smp 2) and compare.
 * Prints
 *   @result {"name": "malloc.MODE.vpsVPS", "package": "fifo", "unit": "ns",
 *            "value": wall ns per pair (all threads together), "pairs",
 *            "threads", "vps", "refills", "drains"}
 */
#include <stdio.h>
#include <stdlib.h>
#include <animalib/ulib.h>
#include <string.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include <animalib/rng.h>
#include <animart/thread.h>
#include "apppkg.h"

#define RING 16

static int nvps, nthreads, central;
static long pairs;

static void *worker(void *arg)
{
	long n = pairs / nthreads;
	uint64_t rng = (uint64_t)(intptr_t)arg * 104729 + 3;
	void *ring[RING] = { 0 };
	for (long k = 0; k < n; k++) {
		int i = (int)(k % RING);
		free(ring[i]);
		if (!(ring[i] = malloc(16 + rand_below(&rng, 1009)))) {
			printf("mallocbench: out of memory\n");
			exit(1);
		}
		*(volatile char *)ring[i] = 1;
	}
	for (int i = 0; i < RING; i++)
		free(ring[i]);
	return 0;
}

static void *main_fn(void *arg)
{
	const struct pkg *P = &fifo_pkg;
	struct thread **t = malloc(sizeof *t * (size_t)nthreads);
	malloc_central_only = central;
	struct malloc_stats s0 = malloc_counts;
	uint64_t t0 = now_ns();
	if (!t) {
		printf("mallocbench: out of memory\n");
		return (void *)1;
	}
	app_fork_join(P, nthreads, worker, t);
	uint64_t ns = now_ns() - t0;
	char name[64];
	snprintf(name, sizeof name, "malloc.%s.vps%d", central ? "central" : "cached", nvps);
	struct result r;
	result_begin(&r, name);
	result_str(&r, "package", "fifo");
	result_str(&r, "unit", "ns");
	result_double(&r, "value", (double)ns / (double)(pairs / nthreads * nthreads));
	result_int(&r, "pairs", pairs / nthreads * nthreads);
	result_int(&r, "threads", nthreads);
	result_int(&r, "vps", nvps);
	result_uint(&r, "refills", malloc_counts.refills - s0.refills);
	result_uint(&r, "drains", malloc_counts.drains - s0.drains);
	result_end(&r);
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 5 || (strcmp(argv[1], "cached") && strcmp(argv[1], "central"))) {
		printf("usage: mallocbench cached|central VPS THREADS PAIRS\n");
		return 2;
	}
	central = !strcmp(argv[1], "central");
	nvps = app_vps(argv[2]);
	nthreads = atoi(argv[3]);
	pairs = atol(argv[4]);
	if (nthreads < 1 || pairs < nthreads) {
		printf("mallocbench: bad arguments\n");
		return 2;
	}
	fifo_pkg.run(nvps, main_fn, 0);
}
