/*
 * forkcow MODE: SYS_fork, SYS_waitpid and SYS_kill on bare VPs (no
 * thread package). harness/tests/test_fork.py.
 *
 * mem: the child sees the parent's memory as it was at the fork (data,
 *   a mapped page run, a demand-zero region touched and untouched, the
 *   stack) though the parent overwrites all of it at once; the child's
 *   writes never reach the parent; a shared segment stays shared both
 *   ways. @result {"name": "forkcow_mem", "child": status word, "parent_bad",
 *   "seg_seen", "pid", "ppid_ok"}.
 * status: exit codes, a fault (WIFSIGNALED, SIGSEGV), WNOHANG before
 *   the end, waitpid(-1), kill(child, SIGTERM), ECHILD after.
 * bomb: every process forks until it is refused, then waits for its
 *   children; the root reports the refusals and that memory came back
 *   (INFO_MEM_AVAIL, exactly). Run with a small memquota.
 * discard: pages a fork left copy-on-write, then SYS_discard, then
 *   written: zeros first, and still writable.
 * race: two more VPs of the parent write their own pages without pause
 *   while VP 0 forks N children; each child checks its snapshot is one
 *   the writers could have left (each page: a prefix of round r, the rest
 *   r-1) and then overwrites it all; each writer checks after every
 *   round that its page holds only its own value.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animalib/result.h>
#include "avail.h"

#define WEXIT(s) (((s) >> 8) & 0xff)
#define WSIG(s)  ((s) & 0x7f)
#define NPG 8
#define WORDS (4096 / 8)

static uint64_t data[NPG][WORDS];            /* .bss */
static uint64_t init_data[4] = { 1, 2, 3, 4 };   /* .data */

static void fill(uint64_t *p, long words, uint64_t v)
{
	for (long i = 0; i < words; i++)
		p[i] = v + (uint64_t)i;
}

static long check(const uint64_t *p, long words, uint64_t v)
{
	long bad = 0;
	for (long i = 0; i < words; i++)
		bad += p[i] != v + (uint64_t)i;
	return bad;
}

static long zeros(const uint64_t *p, long words)
{
	long bad = 0;
	for (long i = 0; i < words; i++)
		bad += p[i] != 0;
	return bad;
}

static int mem(void)
{
	uint64_t stack[WORDS];
	uint64_t *run = sys_map(0, NPG * 4096, PROT_READ | PROT_WRITE);
	uint64_t *lazy = sys_map(0, NPG * 4096, PROT_READ | PROT_WRITE | MAP_LAZY);
	long h = seg_create(4096);
	uint64_t *seg = (uint64_t *)seg_map(h, PROT_READ | PROT_WRITE);
	if (sys_failed((long)run) || sys_failed((long)lazy) || h < 0 || sys_failed((long)seg))
		return 10;
	fill(&data[0][0], NPG * WORDS, 100);
	fill(run, NPG * WORDS, 200);
	fill(lazy, 2 * WORDS, 300);                  /* two pages touched, six not */
	fill(stack, WORDS, 400);
	seg[0] = 1;
	volatile int *go = (volatile int *)&seg[1];
	long pid = sys_fork();
	if (pid < 0)
		return 11;
	if (pid == 0) {
		while (!*go)                         /* until the parent has overwritten it all */
			sys_yield();
		long bad = check(&data[0][0], NPG * WORDS, 100) + check(run, NPG * WORDS, 200) +
			   check(lazy, 2 * WORDS, 300) + zeros(lazy + 2 * WORDS, 6 * WORDS) +
			   check(stack, WORDS, 400) + (init_data[2] != 3);
		if (bad)
			printf("forkcow child: data %ld run %ld lazy %ld+%ld stack %ld init %d\n",
			       check(&data[0][0], NPG * WORDS, 100), check(run, NPG * WORDS, 200),
			       check(lazy, 2 * WORDS, 300), zeros(lazy + 2 * WORDS, 6 * WORDS),
			       check(stack, WORDS, 400), init_data[2] != 3);
		fill(&data[0][0], NPG * WORDS, 500);    /* the parent must never see these */
		fill(run, NPG * WORDS, 600);
		fill(lazy, NPG * WORDS, 700);
		fill(stack, WORDS, 800);
		init_data[2] = 99;
		seg[2] = 0xfeed;                     /* the parent must see this one */
		long ppid = sys_getinfo(INFO_PARENT);
		sys_exit(bad ? 1 : (uint64_t)ppid != seg[3] ? 2 : 0);
	}
	seg[3] = (uint64_t)sys_getinfo(INFO_SPACE);
	fill(&data[0][0], NPG * WORDS, 1000);
	fill(run, NPG * WORDS, 2000);
	fill(lazy, NPG * WORDS, 3000);
	fill(stack, WORDS, 4000);
	init_data[2] = 77;
	*go = 1;
	int st = -1;
	long w = sys_waitpid((int)pid, &st, 0);
	long bad = check(&data[0][0], NPG * WORDS, 1000) + check(run, NPG * WORDS, 2000) +
		   check(lazy, NPG * WORDS, 3000) + check(stack, WORDS, 4000) + (init_data[2] != 77);
	struct result res;
	result_begin(&res, "forkcow_mem");
	result_int(&res, "waited", w == pid);
	result_int(&res, "child", st);
	result_int(&res, "parent_bad", bad);
	result_int(&res, "seg_seen", seg[2] == 0xfeed);
	result_end(&res);
	return 0;
}

static volatile int *volatile nowhere = (volatile int *)8;
static volatile uint64_t *go;       /* status(): a shared word the parent sets after its WNOHANG */

static long child_doing(int what)
{
	long pid = sys_fork();
	if (pid)
		return pid;
	if (what == 1)
		sys_exit(7);
	if (what == 2)
		*nowhere = 1;                        /* a fault: SIGSEGV */
	if (what == 3)
		for (;;)
			sys_sleep(1000000);          /* until killed */
	if (what == 4) {
		while (!__atomic_load_n(go, __ATOMIC_ACQUIRE))
			sys_sleep(1000000);          /* ends only after the parent's WNOHANG */
		sys_exit(3);
	}
	sys_exit(0);
}

static int status(void)
{
	int st[6] = { -1, -1, -1, -1, -1, -1 };
	go = (volatile uint64_t *)seg_map(seg_create(4096), PROT_READ | PROT_WRITE);
	if (sys_failed((long)go))
		return 1;
	long a = child_doing(1), b = child_doing(2), c = child_doing(3), d = child_doing(4);
	long r1 = sys_waitpid((int)a, &st[0], 0);
	long r2 = sys_waitpid((int)b, &st[1], 0);
	long nohang = sys_waitpid((int)d, &st[2], 1);       /* d waits for go: not ended */
	__atomic_store_n(go, 1, __ATOMIC_RELEASE);
	long k = sys_kill((int)c, 15);
	long r3 = sys_waitpid((int)c, &st[3], 0);
	long r4 = sys_waitpid(-1, &st[4], 0);                /* d, the last one */
	long none = sys_waitpid(-1, &st[5], 1);
	long bogus = sys_kill(1, 0) == 0 && sys_getinfo(INFO_SPACE) != 1;   /* not kin */
	struct result res;
	result_begin(&res, "forkcow_status");
	result_int(&res, "exit_ok", r1 == a && WSIG(st[0]) == 0 && WEXIT(st[0]) == 7);
	result_int(&res, "fault_sig", r2 == b ? WSIG(st[1]) : -1);
	result_int(&res, "nohang", nohang);
	result_int(&res, "kill", k);
	result_int(&res, "killed_sig", r3 == c ? WSIG(st[3]) : -1);
	result_int(&res, "any_ok", r4 == d && WEXIT(st[4]) == 3);
	result_int(&res, "none", none);
	result_int(&res, "kill_stranger", bogus);
	result_end(&res);
	return 0;
}

/* Fork until refused; wait for the children; exit 0 if every child was
   collected. Refusals, forks and children killed are counted in the
   segment shared by all (the root's). When memory runs out, a process may
   be killed at a copy-on-write fault (its stack, say) rather than refused
   at a fork: the kernel does not reserve a fork's copies ahead. */
static volatile uint64_t *counts;

static int bomb_one(void)
{
	long kids = 0, made = 0;
	for (;;) {
		long pid = sys_fork();
		if (pid == 0) {
			kids = made = 0;
			continue;                    /* the child bombs too */
		}
		if (pid < 0) {
			__atomic_fetch_add(&counts[pid == -12 ? 0 : pid == -11 ? 1 : 2], 1, __ATOMIC_RELAXED);
			break;
		}
		kids++;
		__atomic_fetch_add(&counts[3], 1, __ATOMIC_RELAXED);
	}
	int st;
	while (sys_waitpid(-1, &st, 0) > 0) {
		made++;
		if (st & 0x7f)               /* killed: a copy-on-write fault found no memory */
			__atomic_fetch_add(&counts[4], 1, __ATOMIC_RELAXED);
	}
	return made != kids;
}

static int bomb(void)
{
	sys_yield();                         /* (the root's stack, touched before the count) */
	long h = seg_create(4096);           /* (its frame and tables stay till the end) */
	counts = (volatile uint64_t *)seg_map(h, PROT_READ | PROT_WRITE);
	if (h < 0 || sys_failed((long)counts))
		return 10;
	long before = avail_wait(AVAIL_STEADY, 1);
	long pid = sys_fork();
	if (pid == 0)
		sys_exit(bomb_one());
	int st = -1;
	long w = sys_waitpid((int)pid, &st, 0);
	if (st & 0x7f)
		__atomic_fetch_add(&counts[4], 1, __ATOMIC_RELAXED);
	uint64_t c[5] = { counts[0], counts[1], counts[2], counts[3], counts[4] };
	avail_settled(1);
	long lost = before - avail_wait(before, 5);
	struct result res;
	result_begin(&res, "forkcow_bomb");
	result_int(&res, "waited", w == pid);
	result_int(&res, "status", st);
	result_int(&res, "enomem", (long)c[0]);
	result_int(&res, "eagain", (long)c[1]);
	result_int(&res, "other", (long)c[2]);
	result_int(&res, "forks", (long)c[3]);
	result_int(&res, "killed", (long)c[4]);
	result_int(&res, "avail_lost", lost);
	result_end(&res);
	return 0;
}

/* race: writers on VPs 1 and 2, each on its own NPG/2 pages of data. */
static volatile int stop, wbad[3];
static volatile uint64_t rounds[3];
static char stacks[3][8192] __attribute__((aligned(16)));

static __attribute__((noreturn)) void writer(long w)
{
	uint64_t *p = &data[(w - 1) * NPG / 2][0];
	for (uint64_t r = 1; !stop; r++) {
		for (long i = 0; i < NPG / 2 * WORDS; i++)
			p[i] = (w << 32) | r;
		for (long i = 0; i < NPG / 2 * WORDS; i++)
			if (p[i] != ((w << 32) | r))
				wbad[w]++;
		rounds[w] = r;
	}
	rounds[w] |= 1UL << 62;                      /* done */
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

/* A child's snapshot: each writer's pages hold round r up to some word,
   r-1 after it (0 before round 1). */
static long snapshot_bad(void)
{
	long bad = 0;
	for (long w = 1; w <= 2; w++) {
		uint64_t *p = &data[(w - 1) * NPG / 2][0];
		uint64_t first = p[0], r = first & 0xffffffff;
		long i = 0;
		while (i < NPG / 2 * WORDS && p[i] == first)
			i++;
		for (; i < NPG / 2 * WORDS; i++)
			bad += p[i] != (r > 1 ? ((uint64_t)w << 32) | (r - 1) : 0);
		bad += first != 0 && first >> 32 != (uint64_t)w;
	}
	return bad;
}

static int race(int n)
{
	for (long w = 1; w <= 2; w++)
		if (syscall3(SYS_vp_create, (long)writer, (long)(stacks[w] + sizeof stacks[w]), w) < 0)
			return 10;
	while (!rounds[1] || !rounds[2])
		sys_yield();
	int failed = 0, forks = 0, childbad = 0;
	for (int i = 0; i < n; i++) {
		long pid = sys_fork();
		if (pid == 0) {
			long bad = snapshot_bad();
			fill(&data[0][0], NPG * WORDS, 0xc0de0000);     /* the writers must never see it */
			bad += check(&data[0][0], NPG * WORDS, 0xc0de0000);
			sys_exit(bad ? 1 : 0);
		}
		if (pid < 0) {
			failed++;
			continue;
		}
		forks++;
		int st = -1;
		if (sys_waitpid((int)pid, &st, 0) != pid || st != 0)
			childbad++;
	}
	stop = 1;
	while (!(rounds[1] >> 62) || !(rounds[2] >> 62))
		sys_yield();
	struct result res;
	result_begin(&res, "forkcow_race");
	result_int(&res, "forks", forks);
	result_int(&res, "failed", failed);
	result_int(&res, "child_bad", childbad);
	result_int(&res, "writer_bad", wbad[1] + wbad[2]);
	result_int(&res, "rounds", (long)((rounds[1] + rounds[2]) & 0xffffffff));
	result_end(&res);
	return 0;
}

/* discard: pages a fork left copy-on-write, discarded (SYS_discard),
   then written: they must stay writable and read as zeros first. */
static int discard_after_fork(void)
{
	volatile uint64_t *p = sys_map(0, NPG * 4096, PROT_READ | PROT_WRITE);
	if (sys_failed((long)p))
		return 10;
	fill((uint64_t *)p, NPG * WORDS, 500);
	long pid = sys_fork();
	if (pid == 0)
		sys_exit(0);
	int st = -1;
	long w = pid > 0 ? sys_waitpid((int)pid, &st, 0) : pid;
	long d = syscall2(SYS_discard, p, NPG * 4096);
	long z = zeros((const uint64_t *)p, NPG * WORDS);
	fill((uint64_t *)p, NPG * WORDS, 600);       /* killed here before */
	struct result res;
	result_begin(&res, "forkcow_discard");
	result_int(&res, "waited", w == pid && st == 0);
	result_int(&res, "discard", d);
	result_int(&res, "nonzero", z);
	result_int(&res, "bad", check((const uint64_t *)p, NPG * WORDS, 600));
	result_end(&res);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "mem";
	if (!strcmp(m, "mem"))
		return mem();
	if (!strcmp(m, "status"))
		return status();
	if (!strcmp(m, "bomb"))
		return bomb();
	if (!strcmp(m, "discard"))
		return discard_after_fork();
	if (!strcmp(m, "race"))
		return race(argc > 2 ? atoi(argv[2]) : 20);
	printf("forkcow: no mode %s\n", m);
	return 2;
}
