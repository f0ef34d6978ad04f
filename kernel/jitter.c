/*
 * The race shaker. With the word `jitter` (or `jitter=SEED`) every trace
 * point (trace.h) and every shake() point spins for a pseudo-random while
 * before going on: half the points not at all, the others 0..40 us, and
 * one in 64 up to 320 us. The kernel runs with interrupts off, so a delay
 * stretches exactly the window it sits in; windows that normally need the
 * host to deschedule a vCPU at the wrong instruction (the on_cpu double
 * free: a VP run, exited and freed on another CPU between two lines) then
 * open every few thousand passes. Each CPU has its own xorshift generator,
 * seeded from the seed and its id, so no lock and no shared line; the runs
 * are still not repeatable (the host schedules the vCPUs), but a seed
 * gives each run the same delay sequence per CPU. Off, nothing here runs:
 * the points share trace()'s one load and not-taken branch.
 */
#include "kernel.h"

#define JITTER_NS 40000UL           /* the usual delay's upper bound */

static uint64_t rng[MAXCPU];
static uint64_t seed;

void jitter_setup(const char *word)
{
	seed = 0;
	for (const char *s = word + 7; word[6] == '=' && *s >= '0' && *s <= '9'; s++)
		seed = seed * 10 + (uint64_t)(*s - '0');
	if (word[6] != '=')
		seed = rdtsc();             /* no seed given: a new one each boot (printed) */
	seed |= 1UL << 63;              /* set: jitter_init turns the shaker on */
}

/* After the clock is calibrated (a delay reads it) and the CPUs are up. */
void jitter_init(void)
{
	if (!seed)
		return;
	uint64_t s = seed & ~(1UL << 63);
	for (int i = 0; i < MAXCPU; i++) {
		uint64_t x = s + 0x9e3779b97f4a7c15UL * (uint64_t)(i + 1);   /* splitmix64 */
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9UL;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebUL;
		rng[i] = (x ^ (x >> 31)) | 1;
	}
	kprintf("anima: jitter on, seed %lu\n", s);
	__atomic_fetch_or(&trace_on, TRACE_JITTER, __ATOMIC_SEQ_CST);
}

void jitter(void)
{
	uint64_t *r = &rng[mycpu()->id], x = *r;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*r = x;
	if (x & 1)
		return;
	uint64_t ns = (x >> 8) % JITTER_NS;
	if (((x >> 1) & 63) == 0)
		ns *= 8;
	/* No pause in the loop: under QEMU's multi-threaded TCG it takes the
	   global lock (idlepoll.c), and thousands a delay would slow the
	   other vCPUs' timers and IPIs instead of only this CPU. */
	uint64_t end = now_ns() + ns;
	while (now_ns() < end)
		__asm__ volatile("" ::: "memory");
}
