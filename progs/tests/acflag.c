/*
 * acflag: user code may set EFLAGS.AC (popfq in ring 3). An interrupt or
 * exception gate does not clear it, so unless the kernel's entry code
 * does (clac), every handler runs with SMAP off: a kernel bug that
 * dereferences a user pointer would go unnoticed (issue 13, class 6).
 * Booted with `memcheck`, the kernel panics if it is ever entered with
 * AC set; this program makes it enter every way it can with AC set:
 * timer interrupts while it spins, a page fault (a demand-zero page),
 * syscalls, and an IPI-delivered signal from a second VP.
 * It also checks its AC survives each entry (the kernel restores the
 * user's flags). Exits 0 when AC was kept throughout.
 */
#include <stdio.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animalib/result.h>

#define AC (1UL << 18)

static uint64_t flags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

static void set_ac(void)
{
	__asm__ volatile("pushfq; orq %0, (%%rsp); popfq" : : "i"(AC) : "memory", "cc");
}

static void clear_ac(void)
{
	__asm__ volatile("pushfq; andq %0, (%%rsp); popfq" : : "i"(~AC) : "memory", "cc");
}

static volatile int go;

static void signaller(long arg) __attribute__((noreturn));
static void signaller(long arg)
{
	(void)arg;
	while (!go)
		__asm__ volatile("pause");
	for (int i = 0; i < 200; i++)
		syscall2(SYS_vp_signal, 0, i);
	go = 2;
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

static char stack[16384] __attribute__((aligned(16)));

int main(void)
{
	char *lazy = (char *)syscall6(SYS_map, 0, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE | MAP_LAZY, 0, 0, 0);
	long vp = syscall3(SYS_vp_create, signaller, stack + sizeof stack, 0);
	int kept = 1, touched = 0;
	set_ac();
	go = 1;
	uint64_t end = now_ns() + 30000000;          /* 30 ms: timer interrupts */
	while (now_ns() < end || go != 2)
		kept &= (flags() & AC) != 0;
	if (!sys_failed((long)lazy)) {
		lazy[PAGE_SIZE] = 1;                 /* a page fault */
		touched = lazy[PAGE_SIZE] == 1;
	}
	kept &= (flags() & AC) != 0;
	for (int i = 0; i < 100; i++) {
		syscall0(SYS_null);
		syscall0(SYS_vp_poll);
		kept &= (flags() & AC) != 0;
	}
	clear_ac();
	struct result r;
	result_begin(&r, "acflag");
	result_bool(&r, "ac_kept", kept);
	result_bool(&r, "lazy_touched", touched);
	result_int(&r, "vp", vp);
	result_end(&r);
	return !(kept && touched && vp > 0);
}
