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
 * The worker says which VP it is on at every turn: a package that
 * slices (naive) may run it on main's VP for a while, and then main
 * yields (counted in same_vp) rather than read its own VP. Run with
 * vps=2 at -smp 2 or more. Prints
 *   @result {"name":"cpuread","readings":..,"dips":..,"max_dip_ns":..,
 *            "turns":..,"same_vp":..,"vps_seen":..}
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
	for (int i = 0; i < TURNS; i++) {
		wpp = vp_pseudo();       /* (a sliced package may have moved us) */
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
	/* Read the worker's VP from another VP. Each VP's CPU time is its
	   own clock, so a move of the worker starts a new series. Main
	   spins rather than yields while they are apart (the worker must
	   run on the other VP); when a slice put them on one VP, main
	   yields until they are apart again. Before, main looked only at
	   the VP the worker started on and gave up if it was its own: a
	   naive slice made that happen now and then (same_vp 1, nothing
	   measured, the test failed). */
	unsigned long readings = 0, dips = 0, max_dip = 0, last = 0, same = 0, seen = 0;
	const struct pseudo_page *cur = 0;
	uint64_t t0 = now_ns();
	while (!done) {
		const struct pseudo_page *p = wpp;
		if (!p) {                /* (only a package that never takes it
		                            to the other VP waits out 20 s) */
			if (now_ns() - t0 > 20000000000ull)
				sched_yield();
			continue;
		}
		if (p == vp_pseudo()) {
			same++;
			sched_yield();
			continue;
		}
		if (p != cur) {
			cur = p;
			last = 0;
			seen++;
		}
		uint64_t c = vp_cpu_ns(p, now_ns());
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
	       "\"max_dip_ns\": %lu, \"turns\": %d, \"same_vp\": %lu, \"vps_seen\": %lu}\n",
	       readings, dips, max_dip, turns, same, seen);
	return 0;
}
