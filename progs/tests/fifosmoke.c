/* fifosmoke [VPS] [THREADS] [ITERS]: quick end-to-end check of the fifo
   package: create/join, a contended mutex across VPs, and a thread that
   sleeps in the kernel while the others keep running. */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animart/sync.h>
#include <animart/pkg.h>
#include <animalib/result.h>
#include "fifo/fifo.h"

static struct mutex m;
static volatile long counter;
static int iters = 10000;
static volatile uint64_t spins;
static volatile int stop;

static void *adder(void *arg)
{
	for (int i = 0; i < iters; i++) {
		umutex_lock(&m);
		counter++;
		umutex_unlock(&m);
		if (i % 64 == 0)
			thread_yield();
	}
	return arg;
}

static void *spinner(void *arg)
{
	while (!stop)
		spins++;
	return arg;
}

static void *main_fn(void *arg)
{
	int n = (int)(intptr_t)arg;
	struct thread *sp = fifo_pkg.create(spinner, 0, 0);
	uint64_t before = spins;
	sys_sleep(20000000);                  /* blocks only this thread */
	uint64_t during = spins - before;
	stop = 1;
	thread_join(sp);
	struct thread *t[256];
	for (int i = 0; i < n; i++)
		t[i] = fifo_pkg.create(adder, (void *)(intptr_t)i, 0);
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += thread_join(t[i]) != (void *)(intptr_t)i;
	struct result r;
	result_begin(&r, "fifosmoke");
	result_int(&r, "counter", counter);
	result_int(&r, "expected", (long)n * iters);
	result_uint(&r, "spins_during_sleep", during);
	result_int(&r, "bad_joins", bad);
	result_uint(&r, "blocked", fifo_stats.rt.blocked);
	result_uint(&r, "unblocked", fifo_stats.rt.unblocked);
	result_uint(&r, "steals", fifo_stats.steals);
	result_uint(&r, "warnings", fifo_stats.rt.warnings);
	result_uint(&r, "preempted", fifo_stats.rt.preempted);
	result_end(&r);
	return (void *)(intptr_t)(counter == (long)n * iters && !bad && during > 0 ? 0 : 1);
}

int main(int argc, char **argv)
{
	int vps = argc > 1 ? atoi(argv[1]) : 4;
	int n = argc > 2 ? atoi(argv[2]) : 32;
	if (argc > 3)
		iters = atoi(argv[3]);
	fifo_pkg.run(vps, main_fn, (void *)(intptr_t)n);
}
