/*
 * cpuread: another VP's CPU time, read while its turns end, never goes
 * back. A worker sleeps in the kernel (sys_sleep) TURNS times, briefly,
 * so its VP's turn ends each time; main, on another VP, reads that VP's
 * CPU time (vp_cpu_ns, which CLOCK_PROCESS_CPUTIME_ID and other threads'
 * CPU clocks sum) as fast as it can and counts readings below an earlier
 * one: a turn the reading missed (the kernel had taken the VP off the
 * CPU but not yet added the turn to run_ns). The process clock clamps
 * such a dip, but the time is then missing from it: a thread's CPU time
 * measured over the same stretch came out larger (ptest's threadcpu).
 * Run with vps=2 at -smp 2 or more. Prints
 *   @result {"name":"cpuread","readings":..,"dips":..,"max_dip_ns":..,
 *            "turns":..,"same_vp":0|1}   (same_vp 1: nothing measured)
 */
#include <pthread.h>
#include <stdio.h>
#include <animart/sys.h>
#include <animart/upcall.h>
#include <animart/clock.h>

#define TURNS 2000

static const struct pseudo_page *volatile wpp;   /* the worker's VP */
static volatile int done, turns;

static void *worker(void *a)
{
	wpp = vp_pseudo();
	for (int i = 0; i < TURNS; i++) {
		for (volatile int k = 0; k < 2000; k++)
			;
		sys_sleep(20000);        /* the VP's turn ends (the thread's, on upcall VPs) */
		turns++;
	}
	done = 1;
	return a;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	/* (spin, not yield: the worker must start on the other VP). Only a
	   package that never takes it there waits out the 20 s: a loaded
	   host held the other VP off for over a second, and a 1 s limit then
	   started the worker here (same_vp 1, the test failed). */
	uint64_t t0 = now_ns();
	while (!wpp)
		if (now_ns() - t0 > 20000000000ull)
			sched_yield();
	unsigned long readings = 0, dips = 0, max_dip = 0, last = 0;
	int same = wpp == vp_pseudo();
	while (!done && !same) {
		uint64_t c = vp_cpu_ns(wpp, now_ns());
		if (c < last) {
			dips++;
			if (last - c > max_dip)
				max_dip = last - c;
		} else
			last = c;
		readings++;
	}
	pthread_join(t, 0);
	printf("@result {\"name\": \"cpuread\", \"readings\": %lu, \"dips\": %lu, "
	       "\"max_dip_ns\": %lu, \"turns\": %d, \"same_vp\": %d}\n",
	       readings, dips, max_dip, turns, same);
	return 0;
}
