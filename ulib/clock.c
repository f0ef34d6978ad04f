/*
 * now_ns: the kernel's clock, read without entering the kernel. The
 * pseudo-register page publishes the kernel's own conversion (ns =
 * (tsc - tsc_base) * ns_mult >> 32, kernel/time.c), so user and kernel
 * times agree: a deadline computed here is one SYS_timer understands.
 * A VP may move to another CPU between the two reads; every CPU's TSC
 * counts from the same base (the kernel relies on that too).
 */
#include <clock.h>
#include <upcall.h>

uint64_t now_ns(void)
{
	const struct pseudo_page *pp = vp_pseudo();
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	uint64_t tsc = (uint64_t)hi << 32 | lo;
	return (uint64_t)(((unsigned __int128)(tsc - pp->tsc_base) * pp->ns_mult) >> 32);
}
