/*
 * exitrace [N [STEP]]: a space ends by SYS_exit(0) on one VP at about the
 * moment its other VP faults (a write to its own text) on the other CPU.
 * Whichever comes first decides how the space ended, and the report must
 * agree with itself: status 0 and no "killed:" line, or status -1
 * (EXIT_KILLED) with one line naming the fault.
 * (harness/tests/test_faults.py::test_exit_racing_a_fault_is_reported_once)
 *
 * A child ("exitrace child D") has two VPs on different CPUs: on `go`,
 * VP 1 says it is faulting and faults; VP 0 waits for that, then exits
 * after D turns of a loop. The root runs N children one after the other
 * with D = i * STEP (default 100, 20) and prints
 * @result {"name": "exitrace", "children": N, "exited": E, "killed": K,
 * "other": O} from their statuses; the harness compares each child's
 * @exit line with the kill lines.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/upcall.h>

#define NVP 2
static volatile int go, ready, faulting;
static int delay;
static volatile uintptr_t text = 0x400000;   /* USER_TEXT: read-only */
static char stacks[NVP][4096] __attribute__((aligned(16)));

/* Fault as soon as `go`, saying so just before. */
static __attribute__((noreturn)) void fault(long i)
{
	__atomic_fetch_add(&ready, 1, __ATOMIC_RELAXED);
	while (!go)
		;
	faulting = 1;
	*(volatile char *)(text + (uintptr_t)i * 8) = 1;
	for (;;)
		;
}

static int child(int d)
{
	delay = d;
	for (long i = 1; i < NVP; i++)
		syscall3(SYS_vp_create, (long)fault, (long)(stacks[i] + sizeof stacks[i]), i);
	for (uint64_t t = sys_time(); ready < NVP - 1 && sys_time() < t + 2000000000UL;)
		sys_yield();
	/* VP 1 spinning on the other CPU (on one CPU there is no race) */
	struct pseudo_page *p1 = pseudo_page(1);
	for (uint64_t t = sys_time(); sys_time() < t + 2000000000UL;) {
		if (p1->oncpu && p1->cpu != sys_getinfo(INFO_CPU))
			break;
		sys_yield();
	}
	go = 1;
	while (!faulting)
		;
	for (volatile int d = 0; d < delay; d++)
		;
	sys_exit(0);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "child"))
		return child(atoi(argv[2]));
	int n = argc > 1 ? atoi(argv[1]) : 100, step = argc > 2 ? atoi(argv[2]) : 20;
	int exited = 0, killed = 0, other = 0;
	for (int i = 0; i < n; i++) {
		char d[16];
		snprintf(d, sizeof d, "%d", i * step);
		const char *av[] = { "exitrace", "child", d };
		long id = sys_spawn("exitrace", 3, av);
		int st = 99;
		if (id < 0 || sys_wait((int)id, &st) < 0)
			other++;
		else if (st == 0)
			exited++;
		else if (st == -1)
			killed++;
		else
			other++;
	}
	printf("@result {\"name\": \"exitrace\", \"children\": %d, \"exited\": %d, \"killed\": %d, "
	       "\"other\": %d}\n", n, exited, killed, other);
	return other != 0;
}
