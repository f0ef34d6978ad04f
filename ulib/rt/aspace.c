/*
 * RLIMIT_AS's count (<animart/aspace.h>). The image's and the initial
 * stack's bytes are fixed, so they are added when asked, not counted;
 * every mapping made for the program is charged before it is made and
 * uncharged when it goes. One counter per process: fork copies it with
 * the memory it describes; the soft limit is the libc's (rlimit.c).
 *
 * Not counted: the runtime's own small maps (VP stacks, thread
 * descriptors), the kernel's VP pages, and what a program maps with raw
 * system calls (SYS_map): it counts what libc and the runtime know.
 */
#include <animart/aspace.h>
#include <animart/sys.h>

extern char __prog_data_end[];          /* the image's end (ulib/user.ld) */

static uint64_t charged;                /* bytes mapped for the program (atomic) */
static uint64_t limit = ~0UL;           /* soft RLIMIT_AS */

static uint64_t pages(uint64_t len)
{
	return (len + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);
}

/* The image (text, data, bss) and the stack the kernel maps at the start. */
static uint64_t fixed(void)
{
	return ((uintptr_t)__prog_data_end - USER_BASE) + USER_STACK_SIZE;
}

uint64_t as_used(void)
{
	return fixed() + __atomic_load_n(&charged, __ATOMIC_RELAXED);
}

long as_charge(uint64_t len)
{
	if (len > USER_TOP)
		return -ENOMEM;          /* no mapping is this long (the kernel's answer too) */
	len = pages(len);
	uint64_t base = fixed(), old = __atomic_load_n(&charged, __ATOMIC_RELAXED);
	do {
		uint64_t max = __atomic_load_n(&limit, __ATOMIC_RELAXED);
		if (max != ~0UL && base + old + len > max)
			return -ENOMEM;
	} while (!__atomic_compare_exchange_n(&charged, &old, old + len, 1, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 0;
}

void as_uncharge(uint64_t len)
{
	len = pages(len);
	uint64_t old = __atomic_load_n(&charged, __ATOMIC_RELAXED);
	/* (never below zero: an unmap of more than was counted, e.g. of
	   pages the program mapped with raw system calls) */
	while (!__atomic_compare_exchange_n(&charged, &old, old > len ? old - len : 0, 1,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

void as_set_limit(uint64_t max)
{
	__atomic_store_n(&limit, max, __ATOMIC_RELAXED);
}

/* The bytes of [a, a+len) mapped now, demand-zero ones included (the
   kernel's count, SYS_mapped with MAPPED_BYTES): what unmapping the
   range takes out of the count, where a program may name holes (munmap,
   MAP_FIXED). A range the kernel refuses (unaligned, the VP range, the
   segment window) holds nothing of the count. */
uint64_t as_held(uint64_t a, uint64_t len)
{
	long r = syscall3(SYS_mapped, a, len, MAPPED_BYTES);
	return sys_failed(r) ? 0 : (uint64_t)r;
}
