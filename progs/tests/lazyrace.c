/*
 * lazyrace ROUNDS SEED: the newest memory paths raced against each
 * other on every CPU, in children that may die at any moment.
 *
 * Each round is a child space ("lazyrace child SEED") with a demand-zero
 * region (a latency of 0, 50 us or 1 ms) and five VPs at once:
 *   - a classic VP reading and writing pages of the region (a delayed
 *     page blocks the VP);
 *   - an upcall VP doing the same from its handler (a delayed page
 *     blocks only the thread: EV_BLOCKED, then EV_UNBLOCKED on arrival);
 *   - a protector: SYS_protect of random ranges to RW, or now and then
 *     R or PROT_NONE, splitting the region;
 *   - an unmapper: SYS_unmap of random ranges mapped again lazy at once,
 *     now and then the whole region;
 *   - a kernel copier: futex wake and wait, and seg_info's copyout, on
 *     pages of the region (the kernel's fill path, lazy_fill).
 * A touch of a PROT_NONE page or of a hole kills the child: then pages
 * are in flight, half-protected, half-unmapped when the space goes. Else
 * main ends the child after a while, the same way. Under memcheck every
 * freed frame is checked, and each space's charges must match what its
 * tables held when they go (space_put); the root checks INFO_MEM_AVAIL is
 * back exactly after all rounds and prints @result {"name": "lazyrace",
 * "rounds", "killed", "exited", "avail_lost"}.
 * (harness/tests/test_security_mem.py::test_lazy_protect_unmap_race)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <errno.h>
#include <animalib/result.h>
#include <animart/upcall.h>
#include <anima/exit.h>
#include "avail.h"
#include "child.h"

#define MS 1000000UL
#define US 1000UL
#define PROT_RW (PROT_READ | PROT_WRITE)
#define NPAGES 64
#define LEN (NPAGES * 4096UL)
#define ITERS 3000

static char *region;
static uint64_t latency;
static long seg;
static volatile int stop;

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t seed0;

#define STACK 8192
static char stacks[8][STACK] __attribute__((aligned(16)));
static char ustack[STACK] __attribute__((aligned(16)));

static void touch_some(uint64_t *s, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t r = next(s);
		volatile char *p = region + (r % NPAGES) * 4096 + (r >> 32) % 4096;
		if (r & (1UL << 20))
			*p = (char)r;
		else
			(void)*p;
	}
}

static __attribute__((noreturn)) void park(void)
{
	for (;;)
		syscall0(SYS_vp_idle);
}

static __attribute__((noreturn)) void toucher(long i)
{
	uint64_t s = seed0 * 31 + (uint64_t)i;
	for (int k = 0; k < ITERS && !stop; k++)
		touch_some(&s, 1);
	park();
}

/* The upcall VP: every delayed touch blocks only the thread and comes
   back here; the ring is drained at each entry. */
static uint64_t us;
static volatile int uentries;

static __attribute__((noreturn)) void uentry(struct vp_page *p, struct pseudo_page *pp)
{
	(void)pp;
	p->ring_head = p->ring_tail;
	if (++uentries > ITERS || stop) {
		p->upcall_entry = 0;
		park();
	}
	p->disabled = 0;
	for (;;)
		touch_some(&us, 1);
}

static __attribute__((noreturn)) void utoucher(long i)
{
	struct vp_page *p = vp_self();
	us = seed0 * 37 + (uint64_t)i;
	p->upcall_stack = (uint64_t)(ustack + STACK);
	p->disabled = 1;
	p->upcall_entry = (uint64_t)uentry;
	p->disabled = 0;
	for (;;)
		touch_some(&us, 1);
}

static void range(uint64_t *s, uint64_t *a, uint64_t *len)
{
	uint64_t r = next(s);
	uint64_t first = r % NPAGES, n = 1 + (r >> 16) % 8;
	if (first + n > NPAGES)
		n = NPAGES - first;
	*a = (uint64_t)region + first * 4096;
	*len = n * 4096;
}

static __attribute__((noreturn)) void protector(long i)
{
	uint64_t s = seed0 * 41 + (uint64_t)i;
	for (int k = 0; k < ITERS && !stop; k++) {
		uint64_t a, len, r = next(&s) % 64;
		range(&s, &a, &len);
		syscall3(SYS_protect, a, len, r == 0 ? 0 : r < 4 ? PROT_READ : PROT_RW);
		if (k % 8 == 0)
			sys_yield();
	}
	park();
}

static __attribute__((noreturn)) void unmapper(long i)
{
	uint64_t s = seed0 * 43 + (uint64_t)i;
	for (int k = 0; k < ITERS && !stop; k++) {
		uint64_t a = (uint64_t)region, len = LEN;
		if (k % 8)
			range(&s, &a, &len);
		if (sys_unmap((void *)a, len) == 0)
			syscall4(SYS_map, a, len, PROT_RW | MAP_LAZY, latency);
		sys_sleep(200 * US);     /* (a hole kills a toucher: not too often) */
	}
	park();
}

static __attribute__((noreturn)) void copier(long i)
{
	uint64_t s = seed0 * 47 + (uint64_t)i;
	for (int k = 0; k < ITERS && !stop; k++) {
		uint64_t r = next(&s);
		uint64_t a = (uint64_t)region + (r % NPAGES) * 4096 + ((r >> 32) % 1024) * 4;
		switch ((r >> 20) % 3) {
		case 0: syscall2(SYS_futex_wake, a, 1); break;
		case 1: syscall3(SYS_futex_wait, a, 12345, 20 * US); break;
		case 2: syscall2(SYS_seg_info, seg, a & ~15UL); break;
		}
	}
	park();
}

static int child(uint64_t sd)
{
	seed0 = sd | 1;
	uint64_t lat[] = { 0, 50 * US, 1 * MS };
	latency = lat[sd % 3];
	long r = syscall4(SYS_map, 0, LEN, PROT_RW | MAP_LAZY, latency);
	if (sys_failed(r))
		return 2;
	region = (char *)r;
	seg = seg_create(4096);
	void (*fn[])(long) = { toucher, utoucher, protector, unmapper, copier, toucher };
	for (long i = 0; i < (long)(sizeof fn / sizeof fn[0]); i++)
		if (sys_failed(syscall3(SYS_vp_create, (long)fn[i], (long)(stacks[i] + STACK), i)))
			return 3;
	sys_sleep((20 + sd % 60) * MS);    /* then end with everything in flight */
	stop = 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "child"))
		return child(strtoull(argv[2], 0, 10));
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	uint64_t sd = argc > 2 ? strtoull(argv[2], 0, 10) : 1;
	long m0 = avail();
	int killed = 0, exited = 0, other = 0;
	for (int i = 0; i < rounds; i++) {
		char a[24];
		snprintf(a, sizeof a, "%lu", sd + (uint64_t)i);
		const char *av[] = { "lazyrace", "child", a };
		int st = child_run(3, av);
		if (st == EXIT_KILLED)
			killed++;
		else if (st == 0)
			exited++;
		else
			other++;
	}
	long m1 = avail_wait(m0, 10);
	struct result res;
	result_begin(&res, "lazyrace");
	result_int(&res, "rounds", rounds);
	result_int(&res, "killed", killed);
	result_int(&res, "exited", exited);
	result_int(&res, "other", other);
	result_int(&res, "avail_lost", m0 - m1);
	result_end(&res);
	return 0;
}
