/*
 * viewracey MODE [NVP [ROUNDS [OPS]]]: DTHREADS's parallel phase on bare
 * VPs over the kernel's isolated views (kernel/view.c), no thread
 * package. harness/tests/test_views.py.
 *
 * NVP VPs do racy read-modify-writes on a shared array (each index
 * read from the array itself, as racey does), OPS per round, ROUNDS
 * rounds. In mode `views` each round is a transaction: every VP runs in
 * its view at once (the parallel phase); once all have ended it (the
 * fence), each commits its diffs in a fixed order of VPs (the token),
 * which refreshes its view; and nobody starts the next round before the
 * last has committed. During a parallel phase nobody commits, so what a VP reads is
 * the space as the last serial phase left it, whatever the CPUs did:
 * the array's signature is the same at any -smp, with jitter, any run.
 * Mode `race` (the control) runs the same code with no views and no
 * order: its signature varies from run to run at -smp 2.
 *
 * @result {"name": "viewracey", "mode", "nvp", "rounds", "ops", "sig",
 *  "tx" (transactions), "commit_pages", "viewpages_end"}
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/view.h>
#include <animalib/result.h>

#define REGION ((uint64_t *)0x300000000000UL)
#define WORDS 4096                   /* 32 KiB: eight pages of races */
#define MAXV 8

static int nvp = 4, rounds = 40, ops = 4000, views;
static volatile long turn, arrived; /* .bss: outside every view */
static volatile long tx, pages, failed, finished;
static char stacks[MAXV][16384] __attribute__((aligned(16)));

/* Wait for counter c to reach t, asleep in the kernel: a VP spinning on
   sys_yield keeps its CPU busy, and under -icount at -smp 2 (one host
   thread runs the CPUs in turn) each hand-off to a VP on the other CPU
   then waited out a whole slice of spinning: 60 s of host time a run. */
static void await(volatile long *c, long t)
{
	long v;
	while ((v = *c) < t)
		syscall3(SYS_futex_wait, (long)c, (uint32_t)v, 0);
}

static void bump(volatile long *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
	syscall2(SYS_futex_wake, (long)c, 0x7fffffff);
}

static void work(long v, int r)
{
	volatile uint64_t *a = REGION;
	for (int k = 0; k < ops; k++) {
		uint64_t j = (a[(uint64_t)(k * 7 + v) % WORDS] + (uint64_t)k * 13 + (uint64_t)r) % WORDS;
		a[j] = a[j] * 31 + (uint64_t)v * 1000003 + (uint64_t)k;
	}
}

static void body(long v)
{
	if (views && view_enter(REGION, VIEW_ALIGN))
		__atomic_fetch_add(&failed, 1, __ATOMIC_RELAXED);
	for (int r = 0; r < rounds; r++) {
		work(v, r);                              /* parallel phase */
		if (!views)
			continue;
		bump(&arrived);
		await(&arrived, (long)(r + 1) * nvp);    /* the fence: all ended their phase */
		await(&turn, (long)r * nvp + v);         /* the token */
		long n = view_commit();
		if (n < 0)
			__atomic_fetch_add(&failed, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&pages, n, __ATOMIC_RELAXED);
		__atomic_fetch_add(&tx, 1, __ATOMIC_RELAXED);
		bump(&turn);
		await(&turn, (long)(r + 1) * nvp);       /* all committed */
	}
	if (views)
		view_leave();
}

static __attribute__((noreturn)) void vp_main(long v)
{
	body(v);
	bump(&finished);
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

int main(int argc, char **argv)
{
	views = argc > 1 && !strcmp(argv[1], "views");
	if (argc > 2)
		nvp = atoi(argv[2]);
	if (argc > 3)
		rounds = atoi(argv[3]);
	if (argc > 4)
		ops = atoi(argv[4]);
	if (nvp < 1 || nvp > MAXV || rounds < 1 || ops < 1)
		return 2;
	volatile uint64_t *a = sys_map(REGION, VIEW_ALIGN, PROT_READ | PROT_WRITE);
	if (a != REGION)
		return 10;
	for (int i = 0; i < WORDS; i++)
		a[i] = (uint64_t)i * 2654435761u;
	for (long v = 1; v < nvp; v++)
		if (syscall3(SYS_vp_create, (long)vp_main, (long)(stacks[v] + sizeof stacks[v]), v) < 0)
			return 11;
	body(0);
	await(&finished, nvp - 1);
	uint64_t sig = 1469598103934665603UL;    /* FNV-1a over the array */
	for (int i = 0; i < WORDS; i++)
		sig = (sig ^ a[i]) * 1099511628211UL;
	struct result r;
	result_begin(&r, "viewracey");
	result_str(&r, "mode", views ? "views" : "race");
	result_int(&r, "nvp", nvp);
	result_int(&r, "rounds", rounds);
	result_int(&r, "ops", ops);
	result_uint(&r, "sig", sig);
	result_int(&r, "tx", tx);
	result_int(&r, "commit_pages", pages);
	result_int(&r, "failed", failed);
	result_int(&r, "viewpages_end", view_pages());
	result_end(&r);
	return 0;
}
