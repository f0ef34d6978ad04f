/*
 * spin MS [others]: a CPU hog for scheduling tests. Started as
 * run=spin:K,MS, each of its K VPs spins (plain user-mode arithmetic, no
 * system calls but an occasional sys_time) until MS ms have passed since
 * the program started, so that whichever CPU it lands on always has a VP
 * waiting for it. With "others" it also stops as soon as it is the only
 * address space left: then MS is only a bound, and a program that needs
 * competition until it is done gets it however slowly the host runs us
 * (a fixed MS in wall-clock time ran out under load before the warned
 * program had its warnings). The VPs are classic (no upcalls). VP 0 prints
 * one @result and exits 0 when all of them are done.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/upcall.h>

#define STACK 16384

static uint64_t end_ns;
static int others;                      /* stop when no other space is left */
static volatile int finished;
static volatile uint64_t sink;

static void spin(void)
{
	uint64_t x = 1;
	while (sys_time() < end_ns && !(others && sys_getinfo(INFO_SPACES_HELD) <= 1))
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
}

/* VPs 1..K-1 start here (rdi = the argument given to SYS_vp_start). */
static void vp_main(void)
{
	spin();
	for (;;)
		syscall0(SYS_vp_idle);   /* nothing will come: sleep until the space ends */
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], 0, 10) : 1000;
	end_ns = sys_time() + ms * 1000000;
	others = argc > 2 && !strcmp(argv[2], "others");
	unsigned nvp = vp_pseudo()->nvp;
	for (unsigned i = 1; i < nvp; i++) {
		char *stack = malloc(STACK);
		long r = syscall6(SYS_vp_start, i, (long)vp_main, (long)(stack + STACK - 8), i, 0, 0);
		if (r < 0) {
			printf("spin: cannot start VP %u: %ld\n", i, r);
			return 1;
		}
	}
	spin();
	while (finished < (int)nvp)
		sys_yield();
	struct result r;
	result_begin(&r, "spin");
	result_uint(&r, "vps", nvp);
	result_uint(&r, "ms", ms);
	result_array(&r, "preemptions");
	for (unsigned i = 0; i < nvp; i++)
		result_uint(&r, 0, pseudo_page(i)->preemptions);
	result_close(&r);
	result_array(&r, "run_ms");      /* the CPU each VP got (as of its last switch) */
	for (unsigned i = 0; i < nvp; i++)
		result_uint(&r, 0, pseudo_page(i)->run_ns / 1000000);
	result_close(&r);
	result_end(&r);
	return 0;
}
