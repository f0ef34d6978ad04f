/*
 * barlat PKG THREADS VPS ROUNDS [WORK]: barrier latency. THREADS threads
 * pass a barrier ROUNDS times, doing WORK iterations of arithmetic
 * between passes; thread 0 times each round. Reports the median, the
 * 99th percentile and the maximum round and how many exceeded 1 ms
 * (a round of a few microseconds of work that takes milliseconds means
 * a woken thread waited for a scheduler decision, e.g. a quantum).
 *
 *   @result {"name": "barlat.PKG", "threads", "vps", "rounds",
 *            "median_ns", "p99_ns", "max_ns", "over_1ms", "seconds"}
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animart/sync.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include "apppkg.h"

static const struct pkg *P;
static int nthreads, nvps, rounds, work;
static struct barrier bar;
static uint64_t *lat;

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	volatile uint64_t x = 0;
	uint64_t prev = now_ns();
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < work; i++)
			x += (uint64_t)i;
		ubarrier_wait(&bar);
		if (me == 0) {
			uint64_t t = now_ns();
			lat[r] = t - prev;
			prev = t;
		}
	}
	return 0;
}

static void *main_fn(void *arg)
{
	(void)arg;
	struct thread **t = malloc(sizeof *t * (size_t)nthreads);
	lat = malloc(sizeof *lat * (size_t)rounds);
	ubarrier_init(&bar, nthreads);
	uint64_t t0 = now_ns();
	app_fork_join(P, nthreads, worker, t);
	uint64_t total = now_ns() - t0;
	app_lat_sort(lat, rounds);
	char name[48];
	snprintf(name, sizeof name, "barlat.%s", P->name);
	struct result r;
	result_begin(&r, name);
	result_str(&r, "package", P->name);
	result_int(&r, "threads", nthreads);
	result_int(&r, "vps", nvps);
	result_int(&r, "rounds", rounds);
	result_int(&r, "work", work);
	app_lat_result(&r, lat, rounds);
	result_double(&r, "seconds", total / 1e9);
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 5, "barlat PKG THREADS VPS ROUNDS [WORK]");
	nthreads = atoi(argv[2]);
	nvps = atoi(argv[3]);
	rounds = atoi(argv[4]);
	work = argc > 5 ? atoi(argv[5]) : 100;
	if (nthreads < 1 || nvps < 1 || rounds < 1 || work < 0) {
		printf("barlat: bad arguments\n");
		return 2;
	}
	P->run(nvps, main_fn, 0);
}
