/*
 * now_ns: the kernel's clock, read without entering the kernel. The
 * pseudo-register page publishes the kernel's own conversion (ns =
 * (tsc - tsc_base) * ns_mult >> 32, kernel/time.c), so user and kernel
 * times agree: a deadline computed here is one SYS_timer understands.
 * A VP may move to another CPU between the two reads; every CPU's TSC
 * counts from the same base (the kernel relies on that too).
 */
#include <animart/clock.h>
#include <animart/upcall.h>

uint64_t now_ns(void)
{
	const struct pseudo_page *pp = vp_pseudo();
	return (uint64_t)(((unsigned __int128)(rdtsc() - pp->tsc_base) * pp->ns_mult) >> 32);
}
