/*
 * Per-CPU counts of view and TLB work (<anima/vstat.h>). Each CPU adds
 * only to its own row, with interrupts off, so no atomics and no shared
 * cache line; a reader sums the rows (a count may be a few events stale).
 */
#include "kernel.h"

_Static_assert(VS_NSTAT <= VSTAT_ROW, "vstat row");

uint64_t vstat_n[MAXCPU][VSTAT_ROW] __attribute__((aligned(64)));

long vstat_info(uint64_t what)
{
	if (what >= VS_NSTAT)
		return -EINVAL;
	uint64_t sum = 0;
	for (int i = 0; i < ncpu; i++)
		sum += what == VS_IDLE_NS ? cpus[i].idle_ns :
		       __atomic_load_n(&vstat_n[i][what], __ATOMIC_RELAXED);
	return (long)(sum & ~(1UL << 63));
}
