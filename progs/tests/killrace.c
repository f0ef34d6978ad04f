/*
 * killrace: every VP of the space faults at the same moment (a write to
 * its own text), on every CPU. The kernel kills the space once, with one
 * line naming the program, the address and the cause (docs/security.md,
 * item 15), whichever VP got there first; the rest go with the space.
 * (harness/tests/test_faults.py::test_simultaneous_faults_one_kill_line)
 */
#include <stdio.h>
#include <stdint.h>
#include <animart/sys.h>

#define NVP 8
static volatile int go, ready;
static volatile uintptr_t text = 0x400000;   /* USER_TEXT: read-only */
static char stacks[NVP][4096] __attribute__((aligned(16)));

static __attribute__((noreturn)) void fault(long i)
{
	__atomic_fetch_add(&ready, 1, __ATOMIC_RELAXED);
	while (!go)
		;
	*(volatile char *)(text + (uintptr_t)i * 8) = 1;
	for (;;)
		;
}

int main(void)
{
	for (long i = 1; i < NVP; i++)
		syscall3(SYS_vp_create, (long)fault, (long)(stacks[i] + sizeof stacks[i]), i);
	for (uint64_t t = sys_time(); ready < NVP - 1 && sys_time() < t + 2000000000UL;)
		sys_yield();
	go = 1;
	fault(0);
}
