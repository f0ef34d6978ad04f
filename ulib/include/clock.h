/* Time since boot. */
#ifndef ULIB_CLOCK_H
#define ULIB_CLOCK_H

#include <stdint.h>

/* The raw time-stamp counter (under -icount shift=0: instructions). The
   memory clobber keeps the compiler from moving loads and stores across
   it, so what a benchmark brackets with two reads stays between them. */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

uint64_t now_ns(void);          /* nanoseconds since boot: the TSC and the pseudo-register page */

#endif
