/*
 * cputshog [NVP]: does SYS_cputs hold kernel memory while its VP is off
 * the CPU? (harness/tests/test_security_mem.py::
 * test_cputs_holds_no_memory_off_the_cpu)
 *
 * SYS_cputs writes in pieces with a sched_point between them, where the
 * VP may give up its CPU mid-call. Its scratch copy of the buffer is
 * ordinary kernel memory, taken outside any quota and from the kernel's
 * reserve, on the promise that there is at most one per CPU. A hostile
 * space breaks the promise if each of many VPs enters cputs just before
 * its quantum ends: the buffer is all newlines, so every piece is one
 * byte and the first sched_point finds the quantum over and yields,
 * parking the VP inside the call.
 *
 * NVP VPs (default 48) wait for a go flag; the root notes free memory,
 * lets them go, and while they enter notes the least free memory it
 * sees. Then it exits, which ends the calls at their next sched_point
 * (so little is written: a few hundred bytes a VP). Result: drop_pages (free pages before - least seen),
 * ncpu, nvp, entered (VPs that reached the call).
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animart/upcall.h>
#include <animalib/result.h>

#define MAXV 200
#define VSTACK 4096
#define US 1000UL

static char buf[65536];
static char stacks[MAXV][VSTACK] __attribute__((aligned(16)));
static volatile int go, entered;

/* Enter cputs about 50 us before this quantum ends. */
static void hog(long arg)
{
	(void)arg;
	while (!go)
		sys_yield();
	struct pseudo_page *pp = vp_pseudo();
	for (;;) {
		uint64_t end = pp->quantum_end, now = sys_time();
		if (now + 50 * US >= end && now < end)
			break;
	}
	__atomic_fetch_add(&entered, 1, __ATOMIC_RELAXED);
	sys_cputs(buf, sizeof buf);
	syscall0(SYS_vp_exit);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 48;
	if (n < 1 || n > MAXV)
		return 2;
	for (unsigned i = 0; i < sizeof buf; i++)
		buf[i] = '\n';
	int made = 0;
	for (; made < n; made++)
		if (syscall3(SYS_vp_create, (long)hog, (long)(stacks[made] + VSTACK), made) < 0)
			break;
	for (int i = 0; i < 4; i++)
		sys_yield();                 /* every VP made and waiting for go */
	long free0 = sys_getinfo(INFO_MEM_FREE), least = free0;
	go = 1;
	/* Watch while they enter: each gets its quantum between two of our
	   looks, and one that entered stays in the call for many quanta
	   (64 Ki one-byte pieces). Stop once all have entered. */
	for (int i = 0; i < 100; i++) {
		sys_yield();
		long f = sys_getinfo(INFO_MEM_FREE);
		if (f < least)
			least = f;
		if (entered == made)
			break;
	}
	struct result r;
	result_begin(&r, "cputshog");
	result_int(&r, "nvp", made);
	result_int(&r, "entered", entered);
	result_int(&r, "ncpu", sys_getinfo(INFO_NCPU));
	result_int(&r, "drop_pages", (free0 - least) / 4096);
	result_end(&r);
	sys_exit(0);                        /* ends the calls still going */
	return 0;
}
