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

/* CLOCK_REALTIME - CLOCK_MONOTONIC (ulib/libc/time.c); weak: only a
   program with the C library makes realtime deadlines. */
__attribute__((weak)) uint64_t __clock_epoch_ns(void);

uint64_t now_ns(void)
{
	const struct pseudo_page *pp = vp_pseudo();
	return (uint64_t)(((unsigned __int128)(rdtsc() - pp->tsc_base) * pp->ns_mult) >> 32);
}

uint64_t dl_boot(uint64_t d)
{
	if (!(d & DL_REALTIME))
		return d;
	uint64_t now = now_ns(), rt = (__clock_epoch_ns ? __clock_epoch_ns() : 0) + now;
	d &= ~DL_REALTIME;
	return d > rt ? now + (d - rt) : 1;   /* (passed: before any clock read, and not 0, "none") */
}
