/*
 * fair [MS]: do the VPs of one space get equal shares of the CPUs?
 * Run as run=fair:N,MS. VP 0 starts VPs 1..N-1; every VP then spins
 * incrementing its own counter (each in its own cache line) until VP 0,
 * after MS ms (default 2000), raises a shared flag. All VPs run the same
 * loop, so a counter measures the CPU a VP got. The VPs are classic (no
 * upcalls): the kernel's quantum preemption is the only scheduling.
 *
 * One @result: counts[i] (work), run_ms[i] (CPU time in the window, from
 * the pseudo-page run_ns), dispatches[i], cpu[i] (where VP i was last),
 * and max/min ratios of both. Exit status 0.
 *
 * Under emulation the two differ: the kernel hands out quanta of wall
 * time, and a vCPU the host deschedules does less work in its quantum.
 * run_ratio is the scheduler's fairness; count_ratio adds the host's.
 */
#include <stdio.h>
#include <animart/clock.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/upcall.h>

#define STACK 16384

struct counter {
	volatile uint64_t n;
	volatile int done;
} __attribute__((aligned(128)));     /* no two counters share a cache line (or a pair) */

static struct counter cnt[MAXVP];
static volatile int go, stop;
static uint64_t end_tsc;
static unsigned nvp;
/* Each VP's CPU time and dispatch count when the window opens and when it
   closes (pseudo-page statistics; stale by at most the quantum under way
   for the VPs that are running at that moment). */
static uint64_t run0[MAXVP], disp0[MAXVP], run1[MAXVP], disp1[MAXVP];

static void snapshot(uint64_t *run, uint64_t *disp)
{
	for (unsigned i = 0; i < nvp; i++) {
		run[i] = pseudo_page(i)->run_ns;
		disp[i] = pseudo_page(i)->dispatches;
	}
}


/* The loop every VP runs (the same instructions for each: only the last,
   rare, step differs); VP 0 also watches the clock every 64K turns. */
static void count(unsigned i)
{
	struct counter *c = &cnt[i];
	while (!go)
		__asm__ volatile("pause");
	while (!stop) {
		uint64_t n = c->n + 1;
		c->n = n;
		if ((n & 0xffff) == 0 && i == 0 && rdtsc() >= end_tsc) {
			snapshot(run1, disp1);
			stop = 1;
		}
	}
	c->done = 1;
}

static void vp_main(uint64_t i)
{
	count((unsigned)i);
	for (;;)
		syscall0(SYS_vp_idle);
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], 0, 10) : 2000;
	struct pseudo_page *pp = vp_pseudo();
	nvp = pp->nvp;
	for (unsigned i = 1; i < nvp; i++) {
		char *stack = malloc(STACK);
		long r = syscall6(SYS_vp_start, i, (long)vp_main, (long)(stack + STACK - 8), i, 0, 0);
		if (r < 0) {
			printf("fair: cannot start VP %u: %ld\n", i, r);
			return 1;
		}
	}
	snapshot(run0, disp0);
	end_tsc = rdtsc() + ms * (pp->tsc_hz / 1000);
	go = 1;
	count(0);
	for (unsigned i = 1; i < nvp; i++)
		while (!cnt[i].done)
			sys_yield();

	uint64_t mn = ~0UL, mx = 0, rmn = ~0UL, rmx = 0, dmn = ~0UL, dmx = 0;
	for (unsigned i = 0; i < nvp; i++) {
		uint64_t n = cnt[i].n, rn = run1[i] - run0[i];
		mn = n < mn ? n : mn;
		mx = n > mx ? n : mx;
		rmn = rn < rmn ? rn : rmn;
		rmx = rn > rmx ? rn : rmx;
		uint64_t d = disp1[i] - disp0[i];
		dmn = d < dmn ? d : dmn;
		dmx = d > dmx ? d : dmx;
	}
	struct result r;
	result_begin(&r, "fair");
	result_uint(&r, "vps", nvp);
	result_uint(&r, "ncpu", pp->ncpu);
	result_uint(&r, "ms", ms);
	result_double(&r, "count_ratio", mn ? (double)mx / (double)mn : 1e9);
	result_double(&r, "run_ratio", rmn ? (double)rmx / (double)rmn : 1e9);
	result_double(&r, "dispatch_ratio", dmn ? (double)dmx / (double)dmn : 1e9);
	result_array(&r, "counts");
	for (unsigned i = 0; i < nvp; i++)
		result_uint(&r, 0, cnt[i].n);
	result_close(&r);
	result_array(&r, "run_ms");
	for (unsigned i = 0; i < nvp; i++)
		result_uint(&r, 0, (run1[i] - run0[i]) / 1000000);
	result_close(&r);
	result_array(&r, "dispatches");
	for (unsigned i = 0; i < nvp; i++)
		result_uint(&r, 0, disp1[i] - disp0[i]);
	result_close(&r);
	result_array(&r, "cpu");
	for (unsigned i = 0; i < nvp; i++)
		result_uint(&r, 0, pseudo_page(i)->cpu);
	result_close(&r);
	result_end(&r);
	return 0;
}
