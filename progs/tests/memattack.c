/*
 * memattack MODE: attacks on the kernel's memory rules (issue 13). Each
 * mode prints one `@result {"name": "memattack", "mode": MODE, ...}` with
 * what it saw; harness/tests/test_security_mem.py says what must hold.
 *
 *   vprange       map/unmap in the kernel-owned VP range: the own pseudo
 *                 and VP page, an unused slot's, a range straddling its
 *                 edge. Then VPs fill slots up to the one attacked; each
 *                 reports %gs:0 (its pseudo page's `self`). If the map at
 *                 the unused slot was accepted (old kernels), VP 0 writes
 *                 a fake `self` into the adopted page, as an attacker would.
 *   pseudowrite   map at slot 1's pseudo page, create VP 1, write its
 *                 pseudo page: the write must kill with a page fault.
 *   placement     map(0) after a fixed map right at the bump pointer, and
 *                 after a MAP_LAZY region that ends just below the VP range:
 *                 never a used address, never the reserved range, -ENOMEM
 *                 when nothing fits.
 *   stale N       spawn N `stalechild`s at once, one after the other: each has a
 *                 writer VP storing garbage into 8 pages while VP 0 unmaps
 *                 and maps them again; the writer dies of a page fault.
 *   quota         INFO_MEM_AVAIL, spawn `hog` (maps 1 MiB chunks until
 *                 -ENOMEM) and `bystander` (sleeps, maps, unmaps meanwhile),
 *                 wait for both, INFO_MEM_AVAIL again.
 *   lazyquota     the same with `lazyhog`, which touches a 64 GiB MAP_LAZY
 *                 region until a fault kills it ("out of memory").
 *   churn         INFO_MEM_AVAIL, spawn `churnchild` (200 VPs that block a few
 *                 times each and exit), wait, INFO_MEM_AVAIL again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <anima/vp.h>

#define NCHURN     200
#define VSTACK     4096
#define STALE_NPG  8
#define STALE_ADDR 0x0000200000000000UL
#define GARBAGE    0xdead00000000beefUL

static char stacks[NCHURN + 2][VSTACK] __attribute__((aligned(16)));
static uint64_t fakepp[512] __attribute__((aligned(4096))) = { 0xfa4e5e1f };
static volatile uint64_t gs_seen[8];
static volatile int started, finished, release;

static const char *mode = "";
static struct result res;

static uint64_t gs_word(int off)
{
	uint64_t v;
	__asm__ volatile("movq %%gs:(%1), %0" : "=r"(v) : "r"((uint64_t)off));
	return v;
}

static long map(uint64_t addr, uint64_t len, long prot)
{
	return syscall3(SYS_map, addr, len, prot);
}

static long map_lazy(uint64_t addr, uint64_t len)
{
	return syscall6(SYS_map, (long)addr, (long)len, PROT_READ | PROT_WRITE | MAP_LAZY, 0, 0, 0);
}

static long unmap(uint64_t addr, uint64_t len)
{
	return syscall2(SYS_unmap, addr, len);
}

static void vp_exit(void)
{
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

static long vp_new(void (*fn)(uint64_t), int stack, uint64_t arg)
{
	uint64_t rsp = (((uint64_t)stacks[stack] + VSTACK) & ~15UL) - 8;   /* as if called */
	return syscall3(SYS_vp_create, (uint64_t)fn, rsp, arg);
}

static long mem_avail(void)
{
	return sys_getinfo(INFO_MEM_AVAIL);
}

/* INFO_MEM_AVAIL once a dead child's last pieces are gone. SYS_wait
   returns when the child has ended, but another CPU may still be leaving
   its page tables (it holds them while loaded, until it switches away):
   wait up to 2 s for the figure to come back to `before`, and report how
   many 1 ms polls it took. Exactness is still the test: a figure that
   settles anywhere else fails. */
static long avail_settled(long before, int *polls)
{
	long now = mem_avail();
	for (*polls = 0; now != before && *polls < 2000; ++*polls) {
		sys_sleep(1000000);
		now = mem_avail();
	}
	return now;
}

static void begin(void)
{
	result_begin(&res, "memattack");
	result_str(&res, "mode", mode);
}

/* begin, with the memory figures of a run whose children ended:
   available memory before (given) and once settled, free memory
   before (given) and now, and the polls the settling took. */
static void begin_mem(long before, long free0)
{
	int polls;
	long after = avail_settled(before, &polls), free1 = sys_getinfo(INFO_MEM_FREE);
	begin();
	result_int(&res, "avail_before", before);
	result_int(&res, "avail_after", after);
	result_int(&res, "free_before", free0);
	result_int(&res, "free_after", free1);
	result_int(&res, "polls", polls);
}

/* ---- vprange ---- */

static void gs_reporter(uint64_t slot)
{
	gs_seen[slot] = gs_word(PP_SELF);
	__atomic_fetch_add(&finished, 1, __ATOMIC_SEQ_CST);
	/* Keep the slot until VP 0 has made them all: an early exit would free
	   it, and the next VP would take it instead of the next slot. */
	while (!__atomic_load_n(&release, __ATOMIC_SEQ_CST))
		sys_yield();
	vp_exit();
}

static void vprange(void)
{
	const int victim = 5;
	uint64_t own_pp = PSEUDO_BASE, own_vpp = VPPAGE_BASE;
	uint64_t pp5 = PSEUDO_BASE + victim * 4096UL, vpp5 = VPPAGE_BASE + victim * 4096UL;
	begin();
	result_int(&res, "unmap_own_pseudo", unmap(own_pp, 4096));
	result_int(&res, "unmap_own_vppage", unmap(own_vpp, 4096));
	result_int(&res, "unmap_unused_pseudo", unmap(pp5, 4096));
	result_int(&res, "unmap_unused_vppage", unmap(vpp5, 4096));
	result_int(&res, "unmap_edge", unmap(VP_RESERVED_LO - 4096, 8192));
	result_int(&res, "unmap_top_edge", unmap(VP_RESERVED_HI - 4096, 8192));
	long m1 = map(pp5, 4096, PROT_READ | PROT_WRITE);
	long m2 = map(vpp5, 4096, PROT_READ | PROT_WRITE);
	result_int(&res, "map_unused_pseudo", m1);
	result_int(&res, "map_unused_vppage", m2);
	result_int(&res, "map_edge", map(VP_RESERVED_LO - 4096, 8192, PROT_READ));
	result_int(&res, "map_lazy_in", map_lazy(pp5 + 4096, 4096));
	/* Our own pages are still there and still ours. */
	result_uint(&res, "own_self", gs_word(PP_SELF));
	result_uint(&res, "own_index", gs_word(PP_INDEX) & 0xffffffff);
	/* Fill slots 1..victim; each VP reports what %gs:0 says. */
	int made = 0;
	for (int i = 1; i <= victim; i++) {
		long r = vp_new(gs_reporter, i, i);
		if (r != i)
			break;
		made++;
		if (i == victim && !sys_failed(m1))  /* adopted, so writable: forge `self` */
			*(volatile uint64_t *)pp5 = (uint64_t)fakepp;
	}
	result_int(&res, "made", made);
	while (finished < made)
		sys_yield();
	__atomic_store_n(&release, 1, __ATOMIC_SEQ_CST);
	result_array(&res, "gs");
	for (int i = 1; i <= victim; i++)
		result_uint(&res, 0, gs_seen[i]);
	result_close(&res);
	result_uint(&res, "victim_self", *(volatile uint64_t *)pp5);   /* readable */
	result_end(&res);
}

/* ---- pseudowrite ---- */

static void parker(uint64_t arg)
{
	(void)arg;
	for (;;)
		sys_yield();
}

static void pseudowrite(void)
{
	uint64_t pp1 = PSEUDO_BASE + 4096;
	long m = map(pp1, 4096, PROT_READ | PROT_WRITE);
	map(VPPAGE_BASE + 4096, 4096, PROT_READ | PROT_WRITE);   /* both, or it is not adopted */
	long r = vp_new(parker, 1, 0);
	printf("memattack: map at slot 1's pseudo page -> %ld, vp_create -> %ld; writing it\n", m, r);
	*(volatile uint64_t *)pp1 = (uint64_t)fakepp;
	begin();
	result_int(&res, "survived", 1);
	result_int(&res, "map", m);
	result_end(&res);
	exit(1);
}

/* ---- placement ---- */

static int in_reserved(uint64_t a, uint64_t len)
{
	return a < VP_RESERVED_HI && a + len > VP_RESERVED_LO;
}

static void placement(void)
{
	begin();
	uint64_t a = map(0, 4096, PROT_READ | PROT_WRITE);
	result_uint(&res, "first", a);
	/* The next placement would be a + 8192 (a guard page after a): put a
	   fixed mapping exactly there, with a marker in it. */
	uint64_t fixed = a + 8192;
	long f = map(fixed, 4096, PROT_READ | PROT_WRITE);
	result_int(&res, "fixed_ok", f == (long)fixed);
	*(volatile uint64_t *)fixed = 0x600d;
	uint64_t b = map(0, 4096, PROT_READ | PROT_WRITE);
	result_uint(&res, "after_fixed", b);
	result_int(&res, "after_fixed_overlaps", b == a || b == fixed);
	result_int(&res, "marker_intact", *(volatile uint64_t *)fixed == 0x600d);
	/* A lazy region from the bump pointer to one page below the VP range. */
	uint64_t next = b + 8192;
	uint64_t llen = VP_RESERVED_LO - next - 4096;
	long l = map_lazy(0, llen);
	result_int(&res, "lazy_at_next", l == (long)next);
	long c = map(0, 4096, PROT_READ | PROT_WRITE);
	result_int(&res, "after_lazy", c);
	result_int(&res, "after_lazy_reserved", !sys_failed(c) && in_reserved(c, 4096));
	result_int(&res, "after_lazy_in_lazy", !sys_failed(c) && c >= l && c < l + (long)llen);
	result_uint(&res, "self_after", gs_word(PP_SELF));
	/* Nothing fits: huge lengths, lazy or not. */
	result_int(&res, "huge_lazy", map_lazy(0, 0x0000700000000000UL));
	result_int(&res, "huge_lazy_top", map_lazy(0, USER_TOP));
	result_int(&res, "huge", map(0, 0x0000700000000000UL, PROT_READ));
	/* With the lazy region gone there is room again, not on a used page. */
	result_int(&res, "unmap_lazy", unmap(l, llen));
	long d = map(0, 4096, PROT_READ | PROT_WRITE);
	result_int(&res, "after_unmap", d);
	result_int(&res, "after_unmap_used", d == (long)a || d == (long)b || d == (long)fixed ||
		   in_reserved(d, 4096));
	if (!sys_failed(d))
		*(volatile uint64_t *)d = 1;
	result_int(&res, "marker_end", *(volatile uint64_t *)fixed == 0x600d);
	result_end(&res);
}

/* ---- stale TLB ---- */

static void writer(uint64_t arg)
{
	(void)arg;
	__atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
	for (uint64_t n = 0;; n++)
		for (int p = 0; p < STALE_NPG; p++) {
			volatile uint64_t *w = (volatile uint64_t *)(STALE_ADDR + p * 4096UL);
			w[0] = GARBAGE + n;     /* where a chained free list would sit */
			w[1] = GARBAGE;
			w[511] = GARBAGE;
		}
}

static void stalechild(void)
{
	uint64_t len = STALE_NPG * 4096UL;
	if (map(STALE_ADDR, len, PROT_READ | PROT_WRITE) != (long)STALE_ADDR)
		exit(2);
	if (vp_new(writer, 1, 0) < 0)
		exit(3);
	while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST))
		;
	for (int round = 0; round < 100000; round++) {
		unmap(STALE_ADDR, len);
		if (map(STALE_ADDR, len, PROT_READ | PROT_WRITE) != (long)STALE_ADDR)
			exit(4);
		/* A fresh page must be zero, not hold the writer's old stores. */
		for (int p = 0; p < STALE_NPG; p++) {
			uint64_t v = *(volatile uint64_t *)(STALE_ADDR + p * 4096UL + 8);
			if (v && v != GARBAGE)
				exit(5);
		}
	}
	exit(0);     /* the writer never faulted: not what the test needs */
}

static long run_child(const char *prog_mode, int *status)
{
	const char *args[] = { "memattack", prog_mode };
	long id = sys_spawn("memattack", 2, args);
	if (id < 0)
		return id;
	return sys_wait((int)id, status);
}

static void stale(int n)
{
	int killed = 0, other = 0, spawnfail = 0;
	for (int i = 0; i < n; i++) {
		int st = 0;
		if (run_child("stalechild", &st) < 0)
			spawnfail++;
		else if (st == -1)
			killed++;
		else
			other++;
	}
	/* Make the kernel hand out every free frame once: with memcheck each
	   is checked for writes after it was freed (the allocator is next-fit,
	   so without this the frames the writer hit might not come back
	   before the run ends). */
	long sweep = 0;
	for (long r; !sys_failed(r = map(0, 1 << 20, PROT_READ | PROT_WRITE)); sweep++)
		;
	begin();
	result_int(&res, "sweep_mib", sweep);
	result_int(&res, "rounds", n);
	result_int(&res, "killed", killed);
	result_int(&res, "other", other);
	result_int(&res, "spawnfail", spawnfail);
	result_end(&res);
}

/* ---- memory bounds and accounting ---- */

static void hog(void)
{
	long chunks = 0, err = 0;
	for (;;) {
		long r = map(0, 1 << 20, PROT_READ | PROT_WRITE);
		if (sys_failed(r)) {
			err = r;
			break;
		}
		*(volatile char *)r = 1;
		chunks++;
	}
	/* At the limit: a lazy fault now must kill, not panic, the kernel, so
	   just report; the kernel's own allocations for others go on. */
	begin();
	result_int(&res, "mib", chunks);
	result_int(&res, "err", err);
	result_end(&res);
	exit(0);
}

/* Touch a huge lazy region page by page: past the quota or the reserve
   the fault kills the space ("out of memory"). */
static void lazyhog(void)
{
	uint64_t len = 1UL << 36;
	long a = map_lazy(0, len);
	if (sys_failed(a))
		exit(2);
	for (uint64_t off = 0; off < len; off += 4096)
		*(volatile char *)(a + off) = 1;
	exit(0);
}

static void bystander(void)
{
	int maps_ok = 0, maps_failed = 0;
	for (int i = 0; i < 300; i++) {
		sys_sleep(200000);
		long r = map(0, 65536, PROT_READ | PROT_WRITE);
		if (sys_failed(r)) {
			maps_failed++;
			continue;
		}
		memset((void *)r, 7, 65536);
		unmap(r, 65536);
		maps_ok++;
	}
	begin();
	result_int(&res, "maps_ok", maps_ok);
	result_int(&res, "maps_failed", maps_failed);
	result_end(&res);
	exit(0);
}

/* A hog (`hog` or `lazyhog`) beside a bystander; then the memory the
   kernel reports must come back exactly. The lazy case also gives the
   free-page figures it shares with the plain one. */
static void hog_beside_bystander(const char *hog_mode)
{
	long before = mem_avail(), free0 = sys_getinfo(INFO_MEM_FREE);
	const char *a1[] = { "memattack", hog_mode }, *a2[] = { "memattack", "bystander" };
	long h = sys_spawn("memattack", 2, a1), b = sys_spawn("memattack", 2, a2);
	int sh = -99, sb = -99;
	if (h > 0)
		sys_wait((int)h, &sh);
	if (b > 0)
		sys_wait((int)b, &sb);
	begin_mem(before, free0);
	result_int(&res, "hog_status", sh);
	result_int(&res, "bystander_status", sb);
	result_end(&res);
}

static void churner(uint64_t arg)
{
	(void)arg;
	__atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < 5; i++)
		syscall2(SYS_io, 100000 + 10000 * (arg % 7), arg);
	sys_sleep(100000);
	__atomic_fetch_add(&finished, 1, __ATOMIC_SEQ_CST);
	vp_exit();
}

static void churnchild(void)
{
	int made = 0;
	for (int i = 0; i < NCHURN; i++)
		if (vp_new(churner, i + 1, i) >= 0)
			made++;
	for (int i = 0; i < 50; i++)   /* many blocking calls of our own */
		syscall2(SYS_io, 50000, i);
	while (finished < made)
		sys_yield();
	begin();
	result_int(&res, "made", made);
	result_end(&res);
	exit(made == NCHURN ? 0 : 1);
}

static void churn(void)
{
	long before = mem_avail(), free0 = sys_getinfo(INFO_MEM_FREE);
	int st = -99;
	long r = run_child("churnchild", &st);
	begin_mem(before, free0);
	result_int(&res, "wait", r);
	result_int(&res, "child_status", st);
	result_end(&res);
}

int main(int argc, char **argv)
{
	mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "vprange"))
		vprange();
	else if (!strcmp(mode, "pseudowrite"))
		pseudowrite();
	else if (!strcmp(mode, "placement"))
		placement();
	else if (!strcmp(mode, "stale"))
		stale(argc > 2 ? atoi(argv[2]) : 200);
	else if (!strcmp(mode, "stalechild"))
		stalechild();
	else if (!strcmp(mode, "quota"))
		hog_beside_bystander("hog");
	else if (!strcmp(mode, "hog"))
		hog();
	else if (!strcmp(mode, "lazyquota"))
		hog_beside_bystander("lazyhog");
	else if (!strcmp(mode, "lazyhog"))
		lazyhog();
	else if (!strcmp(mode, "bystander"))
		bystander();
	else if (!strcmp(mode, "churn"))
		churn();
	else if (!strcmp(mode, "churnchild"))
		churnchild();
	else {
		printf("usage: memattack vprange|pseudowrite|placement|stale N|quota|churn\n");
		return 2;
	}
	return 0;
}
