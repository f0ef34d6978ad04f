/*
 * cputshold: does a large SYS_cputs hold its CPU?
 * (harness/tests/test_security_mem.py::test_large_cputs_does_not_hold_the_cpu)
 *
 * At -smp 1 the root spawns a sleeper ("cputshold sleep"), which sleeps
 * 1 ms at a time, counts its wake-ups in a shared segment and prints a
 * line "z" at each, and then writes CALLS buffers of 64 KiB of lines
 * (the most one SYS_cputs takes), call i's lines made of the digit i,
 * noting how long each call took (us) and how many wake-ups the sleeper
 * had from its start to its return. The UART is polled a byte at a time
 * with interrupts off: written under one console lock, a whole call
 * held the CPU, and no "z" could come out between two of its lines. The
 * harness counts the "z" lines inside each call's block of lines: the
 * order of the console's lines is what was written, whatever the host's
 * load did to the times (the count of wake-ups alone is not: a wake-up
 * due as the call returns is counted, and a stalled host merges several).
 */
#include <stdio.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animalib/result.h>
#include "child.h"

#define MS 1000000UL
#define CALLS 4

struct shared {
	volatile long wakeups;
	volatile int stop;
	volatile int writing;    /* the root is in its calls: mark wake-ups */
};

static char buf[65536];

static int sleeper(void)
{
	struct shared *sh = (struct shared *)seg_map(CAP_BASE, PROT_READ | PROT_WRITE);
	if (sys_failed((long)sh))
		return 2;
	uint64_t t_end = sys_time() + 30000 * MS;
	while (!sh->stop && sys_time() < t_end) {
		sys_sleep(MS);
		sh->wakeups++;
		if (sh->writing)
			sys_cputs("z\n", 2);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "sleep"))
		return sleeper();
	long h = seg_create(4096);
	struct shared *sh = (struct shared *)seg_map(h, PROT_READ | PROT_WRITE);
	if (h < 0 || sys_failed((long)sh))
		return 2;
	const char *av[] = { "cputshold", "sleep" };
	long id = sys_spawn_caps("cputshold", 2, av, &h, 1);
	for (int i = 0; i < 1000 && sh->wakeups < 3; i++)
		sys_sleep(MS);
	uint64_t took[CALLS], woke[CALLS];
	sh->writing = 1;
	for (int i = 0; i < CALLS; i++) {
		for (unsigned j = 0; j < sizeof buf; j++)
			buf[j] = j % 64 == 63 ? '\n' : (char)('0' + i);
		long w0 = sh->wakeups;
		uint64_t t0 = sys_time();
		long r = sys_cputs(buf, sizeof buf);
		took[i] = (sys_time() - t0) / 1000;
		woke[i] = (uint64_t)(sh->wakeups - w0);
		if (r != (long)sizeof buf)
			printf("cputshold: cputs %ld\n", r);
	}
	sh->writing = 0;
	sh->stop = 1;
	struct result res;
	result_begin(&res, "cputshold");
	result_uints(&res, "took_us", took, CALLS);
	result_uints(&res, "woke", woke, CALLS);
	result_int(&res, "sleeper", child_status(id));
	result_end(&res);
	return 0;
}
