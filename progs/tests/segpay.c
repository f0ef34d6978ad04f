/*
 * segpay chain | race N: who pays for a shared segment (kernel/segpay.c).
 * The rule: a segment is charged to one space that holds it (a handle
 * or a mapping) whenever any space does; when its payer stops holding
 * it, the charge moves to one that still does.
 *
 * chain: a child C creates a 20 MiB segment, grants it to the parent R,
 * passes it to a grandchild G (spawn) which maps it, and exits. R now
 * pays (the first holder). R maps 16 MiB while it holds the handle: it
 * must fail (-ENOMEM, memquota=32); R drops the handle: the charge must
 * move to G, so R's map works and G's map of 16 MiB fails. Before, the
 * charge stayed with R until the frames were freed (G kept them), so a
 * child could pin its parent's quota through a grandchild.
 *
 * race N: N rounds of a handle in flight. C creates a 16 MiB segment and
 * grants it to R; R's first VP spawns G with it while R's second VP
 * drops R's handle and tells C to exit, after a delay swept over the
 * rounds: C's end often lands while the spawn holds the only copy of
 * the handle, before G is in the space table. Then G must pay: its map
 * of 20 MiB fails (memquota=32), and R's works. Before, such a segment
 * stayed charged to the dead C (charged to nobody) in most rounds.
 *
 * A control segment of R's (passed to C and G) carries the steps; it is
 * R's own and held by R throughout, so it changes no figure. @result
 * {"name": "segpay", ...}; INFO_MEM_AVAIL must come back exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animalib/result.h>
#include "avail.h"
#include "child.h"

#define MIB (1UL << 20)
/* 4 MiB of bss: a spawn of this program loads (zeroes) 1,024 pages, so
   the race's window, from the spawn's copy of the handle to the child's
   entry in the space table, is wide enough for C's end to land in it. */
static char ballast[4 * MIB] __attribute__((used));
enum { GRANTED, GO, GREADY, CHECK, GRESULT, NCTL };
static volatile uint32_t *ctl;

static void wait_ne(volatile uint32_t *w, uint32_t v)
{
	while (__atomic_load_n(w, __ATOMIC_SEQ_CST) == v)
		syscall3(SYS_futex_wait, w, v, 0);
}

static void set(volatile uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_SEQ_CST);
	syscall2(SYS_futex_wake, w, 0x7fffffff);
}

/* Map len bytes and give them back: 0, or the map's error. Always at
   one address: placement moves on, and each new place's page tables
   would stay (with the space) and count as memory not back. */
#define TRY_AT ((void *)0x300000000000UL)
static long try_map(uint64_t len)
{
	long p = (long)sys_map(TRY_AT, len, PROT_READ | PROT_WRITE);
	if (sys_failed(p))
		return p;
	sys_unmap((void *)p, len);
	return 0;
}

static int map_ctl(long h)
{
	long a = seg_map(h, PROT_READ | PROT_WRITE);
	ctl = (volatile uint32_t *)a;
	return sys_failed(a) ? -1 : 0;
}

/* C: create, grant to R, (chain) pass to G and wait until it mapped;
   (race) wait for R's word to go. */
static int creator(int chain, int parent, uint64_t mb)
{
	if (map_ctl(CAP_BASE) < 0)
		return 2;
	long s = seg_create(mb * MIB);
	long g = s < 0 ? s : sys_cap_grant(s, parent);
	if (g < 0)
		return 3;
	if (chain) {
		long caps[] = { s, CAP_BASE };
		const char *av[] = { "segpay", "grand", "16" };
		if (sys_spawn_caps("segpay", 3, av, caps, 2) < 0)
			return 4;
		wait_ne(&ctl[GREADY], 0);
	}
	set(&ctl[GRANTED], (uint32_t)g);
	if (!chain)
		wait_ne(&ctl[GO], 0);
	return 0;                        /* ends, its handle with it */
}

/* G: map the segment (handle 0) and the control one (1), say so, and
   when R asks, try a map of mb MiB. */
static int grand(uint64_t mb)
{
	if (sys_failed(seg_map(CAP_BASE, PROT_READ | PROT_WRITE)))
		return 2;
	if (map_ctl(CAP_BASE + 1) < 0)
		return 3;
	set(&ctl[GREADY], 1);
	wait_ne(&ctl[CHECK], 0);
	ctl[GRESULT] = (uint32_t)try_map(mb * MIB);
	set(&ctl[CHECK], 2);
	return 0;
}

static void report(const char *mode, const char **k, long *v, int n)
{
	struct result r;
	result_begin(&r, "segpay");
	result_str(&r, "mode", mode);
	for (int i = 0; i < n; i++)
		result_int(&r, k[i], v[i]);
	result_end(&r);
}

static char me[16];

/* The control segment, mapped, and page tables for our maps made, so
   that what is measured after comes back whole. */
static long setup(long *before)
{
	long hc = seg_create(4096);
	if (hc < 0 || map_ctl(hc) < 0 || try_map(20 * MIB) < 0)
		return -1;
	*before = avail_wait(AVAIL_STEADY, 1);
	return hc;
}

static int chain(void)
{
	long before, hc = setup(&before);
	if (hc < 0)
		return 2;
	const char *av[] = { "segpay", "creator", "1", me, "20" };
	long id = sys_spawn_caps("segpay", 5, av, &hc, 1);
	wait_ne(&ctl[GRANTED], 0);
	long h = ctl[GRANTED];
	long cst = child_status(id);
	avail_settled(2);                /* C's tables gone: R and G left */
	long holding = try_map(16 * MIB);
	sys_cap_drop(h);
	long dropped = try_map(16 * MIB);
	set(&ctl[CHECK], 1);
	wait_ne(&ctl[CHECK], 1);
	long gmap = (int32_t)ctl[GRESULT];
	avail_settled(1);
	long lost = before - avail_wait(before, 5);
	seg_unmap((void *)ctl);
	sys_cap_drop(hc);
	const char *k[] = { "creator_status", "map_holding", "map_after_drop", "grandchild_map",
			    "avail_lost" };
	long v[] = { cst, holding, dropped, gmap, lost };
	report("chain", k, v, 5);
	return 0;
}

static volatile uint32_t arm, spawning, dropped_round, quit;
static volatile long drop_h;
static volatile uint64_t delay_ns;
static char stack2[16384] __attribute__((aligned(16)));

/* R's second VP: once the first is in its spawn, wait the round's
   delay, drop R's handle and let C end. */
static void dropper(long unused)
{
	(void)unused;
	for (uint32_t round = 1;; round++) {
		while (__atomic_load_n(&arm, __ATOMIC_SEQ_CST) < round && !quit)
			syscall3(SYS_futex_wait, &arm, round - 1, 0);
		if (quit)
			break;
		while (__atomic_load_n(&spawning, __ATOMIC_SEQ_CST) < round)
			sys_yield();
		for (uint64_t until = sys_time() + delay_ns; sys_time() < until;)
			;
		sys_cap_drop(drop_h);
		set(&ctl[GO], 1);
		set(&dropped_round, round);
	}
	syscall0(SYS_vp_exit);
}

static int race(int rounds)
{
	if (syscall3(SYS_vp_create, (long)dropper, (long)(stack2 + sizeof stack2), 0) < 0)
		return 3;
	long before, hc = setup(&before);
	if (hc < 0)
		return 2;
	long unpaid = 0, rpays = 0, missed = 0, bad = 0;
	for (int i = 0; i < rounds; i++) {
		for (int k = 0; k < NCTL; k++)
			ctl[k] = 0;
		const char *av[] = { "segpay", "creator", "0", me, "16" };
		long cid = sys_spawn_caps("segpay", 5, av, &hc, 1);
		wait_ne(&ctl[GRANTED], 0);
		drop_h = ctl[GRANTED];
		delay_ns = (uint64_t)(i % 40) * 25000;          /* 0 .. ~1 ms */
		set(&arm, (uint32_t)i + 1);
		long caps[] = { drop_h, hc };
		const char *gv[] = { "segpay", "grand", "20" };
		__atomic_store_n(&spawning, (uint32_t)i + 1, __ATOMIC_SEQ_CST);
		long gid = sys_spawn_caps("segpay", 3, gv, caps, 2);
		wait_ne(&dropped_round, (uint32_t)i);
		bad += child_status(cid) != 0;
		if (gid < 0) {               /* the drop came before the spawn took its copy */
			missed++;
			continue;
		}
		wait_ne(&ctl[GREADY], 0);
		avail_settled(2);            /* C's tables gone: R and G left */
		rpays += try_map(20 * MIB) != 0;
		set(&ctl[CHECK], 1);
		wait_ne(&ctl[CHECK], 1);
		unpaid += (int32_t)ctl[GRESULT] == 0;
		bad += child_status(gid) != 0;
	}
	avail_settled(1);
	long lost = before - avail_wait(before, 5);
	set(&quit, 1);                   /* (after: its slot's pages stay with us) */
	set(&arm, (uint32_t)rounds + 1);
	seg_unmap((void *)ctl);
	sys_cap_drop(hc);
	const char *k[] = { "rounds", "missed", "unpaid", "parent_pays", "bad", "avail_lost" };
	long v[] = { rounds, missed, unpaid, rpays, bad, lost };
	report("race", k, v, 6);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 4 && !strcmp(argv[1], "creator"))
		return creator(atoi(argv[2]), atoi(argv[3]), strtoull(argv[4], 0, 10));
	if (argc > 2 && !strcmp(argv[1], "grand"))
		return grand(strtoull(argv[2], 0, 10));
	ballast[0] = 1;
	snprintf(me, sizeof me, "%ld", sys_getinfo(INFO_SPACE));
	if (argc > 1 && !strcmp(argv[1], "race"))
		return race(argc > 2 ? atoi(argv[2]) : 100);
	return chain();
}
