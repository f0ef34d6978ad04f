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

/* A deadline with DL_REALTIME set is a CLOCK_REALTIME time (ns since
   1970 in the other bits), not one on the boot clock: a wait to it
   (thread_block_until and every package's block_until) follows the
   clock if a program sets it meanwhile, since its kernel sleep is a
   SYS_futex_wait_rt, which a clock set ends. From 2116 on (2^62 ns) a
   time does not fit: pdeadline converts such a far one at once. */
#define DL_REALTIME (1ULL << 62)
/* The deadline on the boot clock that d stands for now (d itself if it
   is one already; 1 if it has passed); for waits that cannot follow the
   clock (det) and for looks at whether it has passed. */
uint64_t dl_boot(uint64_t d);

/*
 * A VP's CPU time from its pseudo-register page (<anima/vp.h>): run_ns
 * (whole turns) plus, while it is on a CPU, the time since run_start.
 * vp_cpu_self_ns is exact for the calling VP: a dispatch between the
 * reads changes `dispatches` and it reads again. vp_cpu_ns of another VP
 * reads again while the kernel ends a turn of it (turn_seq odd: it clears
 * oncpu before it adds the turn to run_ns), so it misses no turn; it is
 * as of `now`, read by the caller first: callers that need two VPs'
 * readings monotonic clamp them.
 */
struct pseudo_page;
uint64_t vp_cpu_ns(const struct pseudo_page *pp, uint64_t now);
uint64_t vp_cpu_self_ns(void);

#endif
