/*
 * viewtest MODE: isolated views (kernel/view.c) on bare VPs, no thread
 * package. harness/tests/test_views.py.
 *
 * iso: VP 0 and VP 1 each enter a view of the same 2 MiB region. Stores
 *   one makes are seen neither by the other (in its view, or outside any)
 *   nor by the space until it commits; after both commit both see the
 *   merged bytes; a byte both wrote holds the last committer's value, in
 *   two rounds with the order reversed; a kernel copy (SYS_seg_info's
 *   output) into the view is the view's until a commit, and a discard
 *   drops it. VP 1 ends while still in its view with private pages; VP 0
 *   leaves. INFO_VIEW_PAGES is back to 0.
 * hostile: every bad call the kernel must refuse, with its error; and a
 *   fork from inside a view (-EBUSY). Memory back exactly.
 * fork: VP 1 holds and dirties pages of a view while VP 0 forks a child
 *   that writes the region and ends; VP 1's commit then meets the
 *   copy-on-write entries the fork left and must break them. The child
 *   sees none of VP 1's stores.
 * stress: three VPs in views commit their own byte of 16 shared pages
 *   150 times each, reading pages whose frames the space discards
 *   meanwhile, while VP 0 forks children (copy-on-write entries under the
 *   commits) without pause: every worker sees its own last commit and
 *   never another's byte go back, the space ends with every byte's last
 *   value, and INFO_VIEW_PAGES is back to 0.
 * exec: VP 1 spins in its view with private pages and holds while VP 0
 *   execs `viewtest hostile`: the view ends with the old image.
 * cost: ns per page of a hold, a private copy, a commit (under --icount).
 * audit MODE: runs `viewtest MODE` as a child; INFO_MEM_AVAIL is back
 *   exactly once it has ended.
 * rowrite, lateseg: a write to a read-only page in a view, and a
 *   segment mapped into a view's range after the view began: each kills
 *   the space with a message.
 * prune: pages mapped, stored to and unmapped beside a view's range, in
 *   another GiB and another 512 GiB, by a VP in the view: the tables each
 *   unmap empties are freed, and the view's copies of their entries go.
 * quota: spawns `viewtest fill`, which fills its quota, gets -ENOMEM
 *   from view_enter, frees a little, enters, and writes pages of its view
 *   until the twins' charges kill it (run with memquota); and `viewtest
 *   spin`, which dirties a view and spins until killed. Memory back exactly.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animart/view.h>
#include <anima/vp.h>
#include <animalib/result.h>
#include "avail.h"

#define REGION ((uint8_t *)0x300000000000UL)   /* 2 MiB aligned */
#define RLEN VIEW_ALIGN

#define enter view_enter
#define commit view_commit
#define discard view_discard
#define leave view_leave
#define vpages view_pages

static volatile int step;            /* .bss: outside every view */
static volatile long r1[16];         /* what VP 1 saw */
static char stack1[16384] __attribute__((aligned(16)));

static void await(int s)
{
	while (step < s)
		sys_yield();
}

/* ---- VPs for iso and stress ---- */

#define NW 3                 /* workers in views: VPs 1..NW */
#define NP 16                /* pages they write: byte w of each is worker w's */
#define NS 8                 /* scratch pages after them, discarded (frames freed) again and again */
#define ROUNDS 150
static char wstack[NW + 1][16384] __attribute__((aligned(16)));
static volatile int wdone, wbad[NW + 1], sbad[NW + 1];

static __attribute__((noreturn)) void stress_vp(long w)
{
	volatile uint8_t *a = REGION;
	uint8_t last[NW + 1][NP];
	memset(last, 0, sizeof last);
	if (enter(REGION, RLEN))
		wbad[w] += 1000;
	for (int r = 1; r <= ROUNDS; r++) {
		for (int p = 0; p < NP; p++)
			a[p * 4096 + w] = (uint8_t)r;
		for (int p = 0; p < NS; p++) {       /* holds on frames the space may unmap */
			uint8_t v = a[(NP + p) * 4096 + 64];
			sbad[w] += v != 0 && v != 0xab;
		}
		if (commit() < 0)
			wbad[w] += 100;
		for (int p = 0; p < NP; p++)
			for (int o = 1; o <= NW; o++) {
				uint8_t v = a[p * 4096 + o];
				/* our own byte is our last commit; another's never goes back */
				wbad[w] += o == w ? v != (uint8_t)r : v < last[o][p];
				last[o][p] = v;
			}
		if (r % 16 == 0)
			sys_yield();
	}
	if (w == 1)
		leave();                     /* the others end in their views */
	__atomic_fetch_add(&wdone, 1, __ATOMIC_SEQ_CST);
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

/* ---- iso ---- */

static __attribute__((noreturn)) void iso_vp1(long arg)
{
	(void)arg;
	volatile uint8_t *a = REGION;
	await(1);
	r1[0] = a[0];                        /* outside a view: VP 0's store is not in the space */
	r1[1] = enter(REGION, RLEN);
	r1[2] = a[0];                        /* in a view: not either */
	a[1] = 0x22;
	a[8] = 0xb1;                         /* the byte VP 0 writes too */
	a[4096 + 5] = 0x55;
	step = 2;
	await(3);                            /* VP 0 committed */
	r1[3] = a[0];                        /* page 0 is private here: still not seen */
	r1[4] = a[2 * 4096];                 /* page 2 only read: the space's frame, VP 0's commit */
	r1[5] = commit();
	r1[6] = a[0] | a[1] << 8 | a[8] << 16 | (long)a[4096 + 5] << 24;
	a[16] = 0xb2;                        /* round 2: VP 1 commits first */
	r1[7] = commit();
	step = 4;
	await(5);
	r1[8] = a[16];                       /* VP 0's, committed last */
	a[3 * 4096] = 0x77;                  /* private pages left when it ends */
	a[4 * 4096] = 0x78;
	r1[9] = vpages();
	step = 6;
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

static int iso(void)
{
	volatile uint8_t *a = sys_map(REGION, RLEN, PROT_READ | PROT_WRITE);
	if (a != REGION)
		return 10;
	long h = seg_create(8192);
	uint64_t info[2] = { 0, 0 };
	if (syscall3(SYS_vp_create, (long)iso_vp1, (long)(stack1 + sizeof stack1), 1) < 0)
		return 11;
	long e = enter(REGION, RLEN);
	a[0] = 0x11;
	a[8] = 0xa0;
	a[2 * 4096] = 0x33;
	long copied = syscall2(SYS_seg_info, h, (uint64_t *)(REGION + 5 * 4096));
	info[0] = ((volatile uint64_t *)(REGION + 5 * 4096))[0];
	long dropped = discard();            /* the kernel's copy, and our stores, gone */
	long after_discard = a[0] | ((volatile uint64_t *)(REGION + 5 * 4096))[0];
	a[0] = 0x11;
	a[8] = 0xa0;
	a[2 * 4096] = 0x33;
	step = 1;
	await(2);
	long seen1 = a[1] | a[4096 + 5];     /* VP 1's uncommitted stores */
	long c0 = commit();
	long seen2 = a[1];                   /* refreshed: VP 1 has not committed */
	step = 3;
	await(4);
	long merged = a[0] | a[1] << 8 | a[8] << 16 | (long)a[4096 + 5] << 24;
	a[16] = 0xa2;
	long c0b = commit();
	step = 5;
	await(6);
	long vp_mid = vpages();
	long left = leave();
	long space_view = a[0] | a[1] << 8 | a[8] << 16 | (long)a[4096 + 5] << 24;
	long lost3 = a[3 * 4096];            /* VP 1 ended without committing it */
	for (int i = 0; i < 5000 && vpages(); i++)   /* VP 1's view goes when it is freed */
		sys_sleep(1000000UL);
	struct result r;
	result_begin(&r, "viewtest_iso");
	result_int(&r, "enter", e);
	result_int(&r, "enter1", r1[1]);
	result_int(&r, "copied", copied);
	result_int(&r, "copied_len", (long)info[0]);
	result_int(&r, "dropped", dropped);
	result_int(&r, "after_discard", after_discard);
	result_int(&r, "vp1_outside", r1[0]);
	result_int(&r, "vp1_inside", r1[2]);
	result_int(&r, "vp0_saw_vp1", seen1);
	result_int(&r, "vp0_after_own_commit", seen2);
	result_int(&r, "commit0", c0);
	result_int(&r, "vp1_private_before_commit", r1[3]);
	result_int(&r, "vp1_read_page", r1[4]);
	result_int(&r, "commit1", r1[5]);
	result_int(&r, "vp1_merged", r1[6]);
	result_int(&r, "vp0_merged", merged);
	result_int(&r, "round2_vp1_commit", r1[7]);
	result_int(&r, "round2_vp0_commit", c0b);
	result_int(&r, "round2_byte", r1[8]);
	result_int(&r, "vp1_viewpages", r1[9]);
	result_int(&r, "viewpages_mid", vp_mid);
	result_int(&r, "leave", left);
	result_int(&r, "space", space_view);
	result_int(&r, "lost", lost3);
	result_int(&r, "viewpages_end", vpages());
	result_end(&r);
	return 0;
}

/* ---- hostile ---- */

static int hostile(void)
{
	uint8_t *base = sys_map(REGION, 4 * RLEN, PROT_READ | PROT_WRITE);
	if (base != REGION)
		return 10;
	long h = seg_create(4096);
	long sa = seg_map(h, PROT_READ | PROT_WRITE);
	avail_wait(AVAIL_STEADY, 2);
	long before = avail();
	long e[24], n = 0;
	e[n++] = commit();                                   /* no view: -EINVAL */
	e[n++] = discard();
	e[n++] = leave();
	e[n++] = enter(REGION + 4096, RLEN);                 /* misaligned */
	e[n++] = enter(REGION, 4096);
	e[n++] = enter(REGION, 0);
	e[n++] = enter(0, RLEN);                             /* below USER_BASE */
	e[n++] = enter((void *)0xffff800000000000UL, RLEN);  /* the kernel's */
	e[n++] = enter((void *)0x7fffffe00000UL, 2 * RLEN);  /* past USER_TOP */
	e[n++] = enter((void *)-VIEW_ALIGN, 2 * RLEN);       /* wraps */
	e[n++] = enter((void *)PSEUDO_BASE, RLEN);           /* VP pages: -EBUSY */
	e[n++] = enter((void *)(sa & ~(VIEW_ALIGN - 1)), RLEN);   /* a segment: -EBUSY */
	e[n++] = enter(REGION, VIEW_MAXLEN + RLEN);          /* too long */
	e[n++] = enter(REGION, RLEN);                        /* 0 */
	e[n++] = enter(REGION, RLEN);                        /* overlaps */
	e[n++] = enter(REGION - RLEN, 2 * RLEN);             /* overlaps */
	long vp1 = vpages();
	long more = 0;
	for (int i = 1; i < VIEW_MAXRANGES; i++)             /* up to the limit */
		more += enter(REGION + (uint64_t)i * 64 * RLEN, RLEN) == 0;
	e[n++] = enter(REGION + 64UL * 64 * RLEN, RLEN);     /* one too many: -EINVAL */
	base[0] = 1;
	e[n++] = sys_fork();                                 /* in a view: -EBUSY */
	e[n++] = commit();                                   /* 1 */
	e[n++] = leave();                                    /* 0 */
	e[n++] = vpages();
	long now = avail_wait(before, 2);
	struct result r;
	result_begin(&r, "viewtest_hostile");
	result_array(&r, "errs");
	for (long i = 0; i < n; i++)
		result_int(&r, 0, e[i]);
	result_close(&r);
	result_int(&r, "viewpages_one", vp1);
	result_int(&r, "more", more);
	result_int(&r, "space_byte", base[0]);
	result_int(&r, "avail_lost", before - now);
	result_end(&r);
	return 0;
}

/* ---- fork ---- */

static __attribute__((noreturn)) void fork_vp1(long arg)
{
	(void)arg;
	volatile uint8_t *a = REGION;
	r1[0] = enter(REGION, RLEN);
	r1[1] = a[3 * 4096];                 /* a hold */
	a[0] = 0x5a;                         /* private */
	a[4096] = 0x5b;
	step = 1;
	await(2);                            /* VP 0 forked, the child ended */
	r1[2] = commit();                    /* onto copy-on-write entries */
	r1[3] = a[0] | a[4096] << 8;
	r1[4] = leave();
	step = 3;
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

static int forkmode(void)
{
	volatile uint8_t *a = sys_map(REGION, RLEN, PROT_READ | PROT_WRITE);
	if (a != REGION)
		return 10;
	for (int i = 0; i < 8; i++)
		a[i * 4096] = (uint8_t)i;
	if (syscall3(SYS_vp_create, (long)fork_vp1, (long)(stack1 + sizeof stack1), 1) < 0)
		return 11;
	await(1);
	long pid = sys_fork();
	if (pid == 0) {
		int bad = a[0] != 0 || a[4096] != 1;          /* VP 1's stores are not committed */
		for (int i = 0; i < 8; i++)
			a[i * 4096] = 0xee;
		sys_exit(bad);
	}
	int st = -1;
	long w = pid > 0 ? sys_waitpid((int)pid, &st, 0) : pid;
	step = 2;
	await(3);
	struct result r;
	result_begin(&r, "viewtest_fork");
	result_int(&r, "enter", r1[0]);
	result_int(&r, "held", r1[1]);
	result_int(&r, "waited", w == pid);
	result_int(&r, "child_status", st);
	result_int(&r, "commit", r1[2]);
	result_int(&r, "vp1_sees", r1[3]);
	result_int(&r, "space_sees", a[0] | a[4096] << 8);
	result_int(&r, "leave", r1[4]);
	result_int(&r, "viewpages_end", vpages());
	result_end(&r);
	return 0;
}

/* ---- stress ---- */

static int stress(void)
{
	volatile uint8_t *a = sys_map(REGION, RLEN, PROT_READ | PROT_WRITE);
	if (a != REGION)
		return 10;
	wdone = 0;
	for (long w = 1; w <= NW; w++)
		if (syscall3(SYS_vp_create, (long)stress_vp, (long)(wstack[w] + sizeof wstack[w]), w) < 0)
			return 12;
	long forks = 0, remaps = 0, childbad = 0;
	uint8_t *scratch = (uint8_t *)REGION + NP * 4096;
	while (wdone < NW) {
		long pid = sys_fork();       /* the workers' commits meet copy-on-write entries */
		if (pid == 0) {
			for (int p = 0; p < NP + NS; p++)
				a[p * 4096 + 64] = 0xee;
			sys_exit(0);
		}
		int st = -1;
		if (pid > 0 && sys_waitpid((int)pid, &st, 0) == pid) {
			forks++;
			childbad += st != 0;
		}
		if (syscall2(SYS_discard, scratch, NS * 4096) == 0) {   /* frees the frames views hold */
			for (int p = 0; p < NS; p++)
				scratch[p * 4096 + 64] = 0xab;
			remaps++;
		}
	}
	long bad = 0, sb = 0, final_bad = 0;
	for (int w = 1; w <= NW; w++)
		bad += wbad[w], sb += sbad[w];
	for (int p = 0; p < NP; p++)
		for (int w = 1; w <= NW; w++)
			final_bad += a[p * 4096 + w] != ROUNDS;
	for (int i = 0; i < 5000 && vpages(); i++)   /* the views of VPs that ended in them */
		sys_sleep(1000000UL);
	struct result r;
	result_begin(&r, "viewtest_stress");
	result_int(&r, "forks", forks);
	result_int(&r, "discards", remaps);
	result_int(&r, "child_bad", childbad);
	result_int(&r, "worker_bad", bad);
	result_int(&r, "scratch_bad", sb);
	result_int(&r, "final_bad", final_bad);
	result_int(&r, "viewpages_end", vpages());
	result_end(&r);
	return 0;
}

/* ---- quota: children that fill their quota, or are killed ---- */

static int fill(void)
{
	volatile uint8_t *a = sys_map(REGION, RLEN, PROT_READ | PROT_WRITE);
	if (a != REGION)
		return 10;
	void *chunks[4096];
	int n = 0;
	while (n < 4096 && !sys_failed((long)(chunks[n] = sys_map(0, 65536, PROT_READ | PROT_WRITE))))
		n++;
	/* and the last pages, one at a time: what a chunk left over depends
	   on the program's own layout (its segments' page tables) */
	while (!sys_failed((long)sys_map(0, 4096, PROT_READ | PROT_WRITE)))
		;
	long e1 = enter(REGION, RLEN);       /* no room for its tables: -ENOMEM */
	sys_unmap(chunks[--n], 65536);       /* 16 pages back */
	long e2 = enter(REGION, RLEN);
	printf("viewtest fill: chunks %d enter %ld then %ld\n", n, e1, e2);
	for (int i = 0; i < 512; i++) {      /* two pages each: killed on the way */
		a[i * 4096] = 1;
		printf("viewtest fill: page %d\n", i);
	}
	return 0;                            /* not reached */
}

static int spin(void)
{
	volatile uint8_t *a = sys_map(REGION, RLEN, PROT_READ | PROT_WRITE);
	if (a != REGION || enter(REGION, RLEN))
		return 10;
	for (int i = 0; i < 64; i++)
		a[i * 4096] = 1;
	printf("viewtest spin: in the view\n");
	for (;;)
		a[0]++;
}

/* A write to a read-only page in a view: the space dies (a protection
   fault, as outside a view). */
static int rowrite(void)
{
	volatile uint8_t *a = sys_map(REGION, RLEN, PROT_READ);
	if (a != REGION || enter(REGION, RLEN))
		return 10;
	printf("viewtest rowrite: read %d\n", a[0]);
	a[0] = 1;
	return 11;
}

/* A segment mapped into a view's range after it was entered: a touch
   kills the space (a view never holds a shared frame). */
static int lateseg(void)
{
	long h = seg_create(4096);
	uint64_t len;
	int rights;
	long base = seg_info(h, &len, &rights);
	if (h < 0 || base < 0 || enter((void *)(base & ~(VIEW_ALIGN - 1)), RLEN))
		return 10;
	volatile uint8_t *s = (uint8_t *)seg_map(h, PROT_READ | PROT_WRITE);
	printf("viewtest lateseg: mapped %p\n", (void *)s);
	return s[0] + 11;
}

static int quota(void)
{
	avail_wait(AVAIL_STEADY, 2);
	long before = avail();
	const char *fa[] = { "viewtest", "fill" }, *sa[] = { "viewtest", "spin" };
	int st1 = -1, st2 = -1;
	long p1 = sys_spawn("viewtest", 2, fa);
	long w1 = p1 > 0 ? sys_waitpid((int)p1, &st1, 0) : p1;
	long p2 = sys_spawn("viewtest", 2, sa);
	sys_sleep(200000000UL);
	long k = p2 > 0 ? sys_kill((int)p2, 9) : p2;
	long w2 = p2 > 0 ? sys_waitpid((int)p2, &st2, 0) : p2;
	long now = avail_settled(1);
	if (now != before)
		now = avail_wait(before, 5);
	struct result r;
	result_begin(&r, "viewtest_quota");
	result_int(&r, "fill_waited", w1 == p1);
	result_int(&r, "fill_status", st1);
	result_int(&r, "kill", k);
	result_int(&r, "spin_waited", w2 == p2);
	result_int(&r, "spin_status", st2);
	result_int(&r, "avail_lost", before - now);
	result_end(&r);
	return 0;
}

/* exec: VP 1 dirties and holds pages of its view and spins; VP 0 execs
   `viewtest hostile`. VP 1 and its view end with the old image. */
static __attribute__((noreturn)) void exec_vp1(long arg)
{
	(void)arg;
	volatile uint8_t *a = REGION;
	if (enter(REGION, RLEN) == 0) {
		for (int i = 0; i < 32; i++)
			a[i * 4096] = (uint8_t)(a[(i + 32) * 4096] + 1);
		step = 1;
	}
	for (;;)
		a[0]++;
}

static int exec_in_view(void)
{
	volatile uint8_t *a = sys_map(REGION, RLEN, PROT_READ | PROT_WRITE);
	if (a != REGION)
		return 10;
	if (syscall3(SYS_vp_create, (long)exec_vp1, (long)(stack1 + sizeof stack1), 1) < 0)
		return 11;
	await(1);
	long held = vpages();
	printf("viewtest exec: VP 1's view holds %ld pages\n", held);
	const char *args[] = { "viewtest", "hostile" };
	long r = sys_exec("viewtest", 2, args, 0, 0);
	printf("viewtest exec: exec returned %ld\n", r);
	return 12;
}

/* cost: what a view costs per page, in ns (use --icount for figures
   that do not depend on the host): touching NPAGE pages outside a view
   (writes), then in one: the first read of each (a hold), the first
   write after it (copy and twin), a write to a page not read first, a
   commit of them all, and a commit with nothing to write. */
#define NPAGE 256
static int cost(void)
{
	volatile uint8_t *a = sys_map(REGION, RLEN, PROT_READ | PROT_WRITE);
	if (a != REGION)
		return 10;
	uint64_t t[8];
	t[0] = sys_time();
	for (int i = 0; i < NPAGE; i++)
		a[i * 4096] = 1;                 /* mapped already: a plain store */
	t[1] = sys_time();
	if (enter(REGION, RLEN))
		return 11;
	long sum = 0;
	for (int i = 0; i < NPAGE; i++)
		sum += a[i * 4096];              /* holds */
	t[2] = sys_time();
	for (int i = 0; i < NPAGE; i++)
		a[i * 4096] = 2;                 /* hold -> private */
	t[3] = sys_time();
	long c1 = commit();
	t[4] = sys_time();
	for (int i = 0; i < NPAGE; i++)
		a[i * 4096 + 8] = 3;             /* not read first: private at once */
	t[5] = sys_time();
	long c2 = commit();
	t[6] = sys_time();
	long c3 = commit();
	t[7] = sys_time();
	leave();
	struct result r;
	result_begin(&r, "viewtest_cost");
	result_int(&r, "pages", NPAGE);
	result_int(&r, "sum", sum);
	result_int(&r, "commits", c1 + c2 + c3);
	result_int(&r, "store_ns", (long)(t[1] - t[0]) / NPAGE);
	result_int(&r, "hold_ns", (long)(t[2] - t[1]) / NPAGE);
	result_int(&r, "hold_to_private_ns", (long)(t[3] - t[2]) / NPAGE);
	result_int(&r, "commit_ns", (long)(t[4] - t[3]) / NPAGE);
	result_int(&r, "private_ns", (long)(t[5] - t[4]) / NPAGE);
	result_int(&r, "commit2_ns", (long)(t[6] - t[5]) / NPAGE);
	result_int(&r, "empty_commit_ns", (long)(t[7] - t[6]));
	result_end(&r);
	return 0;
}

/* prune: VP 0 in a view of REGION maps a page, stores to it and unmaps
   it, again and again, beside the range (same GiB), in another GiB and in
   another 512 GiB: each unmap empties the space's tables there, which
   the kernel frees (kernel/vm.c vm_prune), and the view had copied their
   entries (view_sync). A copy left behind would name a freed table: the
   next map's page unreachable, or memory not the space's. */
static int prune(void)
{
	volatile uint8_t *a = sys_map(REGION, RLEN, PROT_READ | PROT_WRITE);
	if (a != REGION || enter(REGION, RLEN))
		return 10;
	a[0] = 1;
	uint8_t *at[3] = { REGION + 3 * RLEN, REGION + (1UL << 30), REGION + (1UL << 39) + RLEN };
	enum { NPRUNE = 40, PRUNE_SCRATCH = 8 * 4096 };
	void *scratch[NPRUNE];
	int ok = 0;
	for (int i = 0; i < NPRUNE; i++) {
		for (int k = 0; k < 3; k++) {
			volatile uint8_t *p = sys_map(at[k], 4096, PROT_READ | PROT_WRITE);
			if (p != at[k])
				continue;
			ok += p[100] == 0;
			p[100] = (uint8_t)(i + 1);
			ok += p[100] == (uint8_t)(i + 1);
			ok += sys_unmap(at[k], 4096) == 0;
		}
		/* the pages just freed (the allocator gives them out again
		   first) become this map's frames, not the next tables */
		scratch[i] = sys_map(0, PRUNE_SCRATCH, PROT_READ | PROT_WRITE);
	}
	for (int i = 0; i < NPRUNE; i++)
		ok += sys_unmap(scratch[i], PRUNE_SCRATCH) == 0;
	long c = commit();
	printf("viewtest prune: ok %d of %d\n", ok, NPRUNE * 10);
	struct result r;
	result_begin(&r, "viewtest_prune");
	result_int(&r, "ok", ok);
	result_int(&r, "want", NPRUNE * 10);
	result_int(&r, "commit", c);
	result_int(&r, "leave", leave());
	result_end(&r);
	return 0;
}

/* audit MODE: MODE in a child space; every page it used is back once it
   has ended (INFO_MEM_AVAIL exactly), whatever VP slots it took. */
static int audit(const char *mode)
{
	avail_wait(AVAIL_STEADY, 2);
	long before = avail();
	const char *args[] = { "viewtest", mode };
	int st = -1;
	long pid = sys_spawn("viewtest", 2, args);
	long w = pid > 0 ? sys_waitpid((int)pid, &st, 0) : pid;
	long now = avail_settled(1);
	if (now != before)
		now = avail_wait(before, 5);
	struct result r;
	result_begin(&r, "viewtest_audit");
	result_int(&r, "waited", w == pid);
	result_int(&r, "status", st);
	result_int(&r, "avail_lost", before - now);
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "iso";
	if (!strcmp(m, "iso"))
		return iso();
	if (!strcmp(m, "hostile"))
		return hostile();
	if (!strcmp(m, "fork"))
		return forkmode();
	if (!strcmp(m, "fill"))
		return fill();
	if (!strcmp(m, "spin"))
		return spin();
	if (!strcmp(m, "audit") && argc > 2)
		return audit(argv[2]);
	if (!strcmp(m, "exec"))
		return exec_in_view();
	if (!strcmp(m, "cost"))
		return cost();
	if (!strcmp(m, "stress"))
		return stress();
	if (!strcmp(m, "rowrite"))
		return rowrite();
	if (!strcmp(m, "lateseg"))
		return lateseg();
	if (!strcmp(m, "quota"))
		return quota();
	if (!strcmp(m, "prune"))
		return prune();
	printf("viewtest: unknown mode %s\n", m);
	return 2;
}
