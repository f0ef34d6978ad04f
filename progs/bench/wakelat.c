/*
 * wakelat PKG ROUNDS [VPS] [SPINNERS] [IDLESPIN_US]: wake-up latency. Two threads
 * ping-pong through two semaphores ROUNDS times; each round trip is
 * timed. With SPINNERS > 0, that many extra threads compute without
 * blocking meanwhile (so the CPUs are busy and a woken thread must wait
 * for a scheduler decision). Reports the median, the 99th percentile and
 * the maximum round trip and how many took longer than 1 ms. IDLESPIN_US
 * sets how long an idle VP of a runtime package watches for work before
 * it idles in the kernel (rt_idlespin_ns; default: the runtime's), and
 * "vp_idles" says how often one idled (SYS_vp_idle).
 *
 *   @result {"name": "wakelat.PKG", "unit": "ns", "value", "rounds",
 *            "median_ns", "p99_ns", "max_ns", "over_1ms", "seconds",
 *            "idlespin_ns", "vp_idles"}
 *
 * value is one signal-wait hand-off: half the median round trip. With
 * VPS = the CPUs (and no spinners) it is the multi-CPU counterpart of
 * pkgbench's signal_wait, which runs on one VP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animart/sync.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include <animart/vprt.h>
#include "apppkg.h"

static const struct pkg *P;
static int rounds, nvps, nspin;
static struct sem ping, pong;
static volatile int stop;

static void *ponger(void *arg)
{
	for (int i = 0; i < rounds; i++) {
		usem_wait(&ping);
		usem_post(&pong);
	}
	return arg;
}

static void *spinner(void *arg)
{
	volatile uint64_t x = 0;
	while (!stop)
		x++;
	return arg;
}

static void *main_fn(void *arg)
{
	(void)arg;
	uint64_t *lat = malloc(sizeof *lat * (size_t)rounds);
	struct thread *sp[64];
	for (int i = 0; i < nspin; i++)
		sp[i] = app_create(P, spinner, 0);
	struct thread *t = app_create(P, ponger, 0);
	uint64_t t0 = now_ns();
	for (int i = 0; i < rounds; i++) {
		uint64_t s = now_ns();
		usem_post(&ping);
		usem_wait(&pong);
		lat[i] = now_ns() - s;
	}
	uint64_t total = now_ns() - t0;
	thread_join(t);
	stop = 1;
	for (int i = 0; i < nspin; i++)
		thread_join(sp[i]);
	app_lat_sort(lat, rounds);
	char name[48];
	snprintf(name, sizeof name, "wakelat.%s", P->name);
	struct result r;
	result_begin(&r, name);
	result_str(&r, "package", P->name);
	result_str(&r, "unit", "ns");
	result_double(&r, "value", lat[rounds / 2] / 2.0);
	result_int(&r, "rounds", rounds);
	result_int(&r, "vps", nvps);
	result_int(&r, "spinners", nspin);
	app_lat_result(&r, lat, rounds);
	result_double(&r, "seconds", total / 1e9);
	result_uint(&r, "idlespin_ns", rt_idlespin_ns);
	result_uint(&r, "vp_idles", rt_idle_calls);
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 3, "wakelat PKG ROUNDS [VPS] [SPINNERS] [IDLESPIN_US]");
	rounds = atoi(argv[2]);
	nvps = argc > 3 ? atoi(argv[3]) : 1;
	nspin = argc > 4 ? atoi(argv[4]) : 0;
	if (argc > 5) {
		int us = atoi(argv[5]);
		if (us < 0 || us > 1000000) {
			printf("wakelat: bad IDLESPIN_US (0..1000000)\n");
			return 2;
		}
		rt_idlespin_ns = (uint64_t)us * 1000;
	}
	if (rounds < 1 || nspin < 0 || nspin > 64) {
		printf("wakelat: bad arguments\n");
		return 2;
	}
	P->run(nvps, main_fn, 0);
}
