/*
 * badcall: the kernel must turn every bad syscall argument into an error
 * return, never a crash or a silent success. Each check names the call,
 * the accepted result(s) and prints a line when it gets something else.
 * Ends with @result {"name": "badcall", "checks": N, "failures": F,
 * "failed": [names]} and exits 0 iff F == 0.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <animalib/result.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animart/upcall.h>

#define KADDR     0xffffffff80100000UL   /* kernel text */
#define NONCANON  0x0000900000000000UL
#define UNMAPPED  0x10000UL               /* below USER_BASE: never mapped */
#define SCRATCH   (USER_MAP_BASE + (1UL << 40))   /* nothing of ours is here */
#define RW        (PROT_READ | PROT_WRITE)

static int checks, failures;
static const char *failed[64];

static void fail(const char *what)
{
	if (failures < (int)(sizeof failed / sizeof failed[0]))
		failed[failures] = what;
	failures++;
}

/* got must be one of the negated errnos in want[] (ended by -1; 0 there
 * means success, a 0 result). */
static void expectv(const char *what, long got, const int *want)
{
	char list[64];
	int n = 0;
	checks++;
	for (const int *w = want; *w >= 0; w++)
		if (got == -*w)
			return;
	for (const int *w = want; *w >= 0; w++)
		n += snprintf(list + n, sizeof list - (size_t)n, "%s%s%s", w == want ? "" : " or ",
			      *w ? "-" : "", *w ? errname(*w) : "0");
	fail(what);
	if (sys_failed(got))
		printf("badcall: FAIL %s: expected %s, got %ld (-%s)\n", what, list, got, errname((int)got));
	else
		printf("badcall: FAIL %s: expected %s, got %ld (%#lx)\n", what, list, got, got);
}
#define EXPECT(what, got, ...) expectv((what), (long)(got), (const int[]){ __VA_ARGS__, -1 })

static void ok(const char *what, int cond)
{
	checks++;
	if (!cond) {
		fail(what);
		printf("badcall: FAIL %s\n", what);
	}
}

/* A spawn that should fail; if it succeeds anyway, reap the child. */
static long spawn(const char *prog, int argc, const char *const *argv)
{
	long id = sys_spawn(prog, argc, argv);
	if (id >= 0) {
		int st;
		sys_wait((int)id, &st);
	}
	return id;
}

/* Numbers past the table, negative, or with high bits set (a kernel
 * that looked only at the low 32 bits would run getinfo for the last). */
static void unknown_syscalls(void)
{
	EXPECT("syscall NSYSCALL", syscall0(NSYSCALL), ENOSYS);
	EXPECT("syscall NSYSCALL+1", syscall0(NSYSCALL + 1), ENOSYS);
	EXPECT("syscall 1000", syscall0(1000), ENOSYS);
	EXPECT("syscall -1", syscall0(-1), ENOSYS);
	EXPECT("syscall 1<<40", syscall0(1L << 40), ENOSYS);
	EXPECT("syscall 1<<32|getinfo", syscall1((1L << 32) | SYS_getinfo, INFO_SPACE), ENOSYS);
}

/* Two pages at SCRATCH, the second unmapped again: a buffer at the end of
 * the first runs into unmapped memory. Returns the end of the first page,
 * or 0 if the mapping failed. */
static char *edge(void)
{
	void *m = sys_map((void *)SCRATCH, 2 * PAGE_SIZE, RW);
	ok("map fixed 2 pages", m == (void *)SCRATCH);
	EXPECT("unmap 2nd page", sys_unmap((char *)SCRATCH + PAGE_SIZE, PAGE_SIZE), 0);
	return m == (void *)SCRATCH ? (char *)m + PAGE_SIZE : 0;
}

static void bad_cputs(char *end)
{
	char buf[16] = "0123456789";
	EXPECT("cputs NULL", sys_cputs(0, 5), EFAULT);
	EXPECT("cputs kernel", sys_cputs((char *)KADDR, 5), EFAULT);
	EXPECT("cputs noncanonical", sys_cputs((char *)NONCANON, 5), EFAULT);
	EXPECT("cputs unmapped", sys_cputs((char *)UNMAPPED, 5), EFAULT);
	if (end) {
		memcpy(end - 3, "abc", 3);
		EXPECT("cputs crossing", sys_cputs(end - 3, 6), EFAULT);
	}
	EXPECT("cputs huge length", sys_cputs(buf, 1UL << 62), EFAULT, EINVAL);
	EXPECT("cputs wrapping", sys_cputs(buf, -(unsigned long)buf + 16), EFAULT, EINVAL);
}

static void bad_spawn(char *end)
{
	const char *argv[MAX_ARGS + 1];
	for (int i = 0; i <= MAX_ARGS; i++)
		argv[i] = "hello";
	const char *badarg[] = { "hello", (const char *)KADDR };
	static char longarg[MAX_ARGLEN];
	memset(longarg, 'x', sizeof longarg - 1);
	const char *toolong[] = { "hello", longarg, longarg };

	EXPECT("spawn prog NULL", spawn(0, 1, argv), EFAULT);
	EXPECT("spawn prog kernel", spawn((char *)KADDR, 1, argv), EFAULT);
	if (end) {
		memcpy(end - 3, "hel", 3);     /* unterminated: runs off the page */
		EXPECT("spawn prog crossing", spawn(end - 3, 1, argv), EFAULT);
	}
	EXPECT("spawn no such program", spawn("no-such-program", 1, argv), ENOENT);
	EXPECT("spawn argv NULL", spawn("hello", 1, 0), EFAULT);
	EXPECT("spawn argv unmapped", spawn("hello", 1, (const char *const *)UNMAPPED), EFAULT);
	EXPECT("spawn argv kernel", spawn("hello", 1, (const char *const *)KADDR), EFAULT);
	EXPECT("spawn argv[1] kernel", spawn("hello", 2, badarg), EFAULT);
	EXPECT("spawn argc -1", spawn("hello", -1, argv), EINVAL);
	EXPECT("spawn argc MAX_ARGS+1", spawn("hello", MAX_ARGS + 1, argv), E2BIG);
	EXPECT("spawn args too long", spawn("hello", 3, toolong), E2BIG, EINVAL);
}

static void bad_wait(void)
{
	int st;
	const char *args[] = { "hello", "0" };
	long id = sys_spawn("hello", 2, args);
	ok("spawn hello", id > 0);
	if (id > 0) {
		EXPECT("wait status kernel", sys_wait((int)id, (int *)KADDR), EFAULT);
		EXPECT("wait status read-only", sys_wait((int)id, (int *)(uintptr_t)bad_wait), EFAULT);
		sys_wait((int)id, &st);        /* reap it, if the above did not */
	}
	EXPECT("wait self", sys_wait((int)sys_getinfo(INFO_SPACE), &st), ECHILD);
	EXPECT("wait non-child", sys_wait(99999, &st), ECHILD);
}

static void bad_map(void)
{
	EXPECT("map len 0", (long)sys_map(0, 0, RW), EINVAL);
	EXPECT("map kernel half", (long)sys_map((void *)0xffff800000000000UL, PAGE_SIZE, RW), EINVAL, EFAULT);
	EXPECT("map kernel text", (long)sys_map((void *)0xffffffff80000000UL, PAGE_SIZE, RW), EINVAL, EFAULT);
	EXPECT("map across USER_TOP", (long)sys_map((void *)(USER_TOP - PAGE_SIZE), 2 * PAGE_SIZE, RW), EINVAL, EFAULT);
	EXPECT("map misaligned", (long)sys_map((void *)(SCRATCH + 4 * PAGE_SIZE + 1), PAGE_SIZE, RW), EINVAL);
	EXPECT("map len wraps", sys_map((void *)(SCRATCH + 8 * PAGE_SIZE), -PAGE_SIZE, RW),
	       EINVAL, EFAULT, ENOMEM);
	EXPECT("unmap kernel text", sys_unmap((void *)0xffffffff80000000UL, PAGE_SIZE), EINVAL, EFAULT);
}

/* Lengths that wrap when rounded up to a page: unmap rounded ~0 to 0 and
 * reported success, and a "zero-length" unmap inside a demand-zero region
 * still cut it in two, taking one of the space's 8 region slots each. */
static void wrapping_lengths(void)
{
	char *lazy = sys_map(0, 16 * PAGE_SIZE, RW | MAP_LAZY);
	ok("map lazy 16 pages", !sys_failed((long)lazy));
	if (sys_failed((long)lazy))
		return;
	for (int i = 1; i <= 8; i++) {
		EXPECT("unmap len ~0", sys_unmap(lazy + i * PAGE_SIZE, ~0UL), EINVAL);
		EXPECT("unmap len -4095", sys_unmap(lazy + i * PAGE_SIZE, -(PAGE_SIZE - 1)), EINVAL);
	}
	EXPECT("protect len ~0", sys_protect(lazy, ~0UL, PROT_READ), EINVAL, ENOMEM);
	EXPECT("protect len -4095", sys_protect(lazy, -(PAGE_SIZE - 1), PROT_READ), EINVAL, ENOMEM);
	EXPECT("map len ~0", (long)sys_map(0, ~0UL, RW), EINVAL, ENOMEM);
	EXPECT("map lazy len ~0", (long)sys_map(0, ~0UL, RW | MAP_LAZY), EINVAL, ENOMEM);
	/* the region is whole: one more lazy map still finds a slot */
	void *more = sys_map(0, PAGE_SIZE, RW | MAP_LAZY);
	ok("map lazy after the bad unmaps", !sys_failed((long)more));
	lazy[15 * PAGE_SIZE] = 1;                /* and its pages still fill */
	EXPECT("unmap lazy", sys_unmap(lazy, 16 * PAGE_SIZE), 0);
	if (!sys_failed((long)more))
		EXPECT("unmap lazy 2", sys_unmap(more, PAGE_SIZE), 0);
}

/* SYS_mapped with MAPPED_BYTES counts the bytes of a range that are
 * mapped or demand-zero (RLIMIT_AS's count of an unmap, ulib/rt/aspace.c):
 * holes left out, a demand-zero region's touched pages counted once, a
 * partly covered region only in part; unknown flags EINVAL. */
static void mapped_bytes(void)
{
	char *p = sys_map(0, 16 * PAGE_SIZE, RW);
	char *z = sys_map(0, 16 * PAGE_SIZE, RW | MAP_LAZY);
	ok("map 16 pages and 16 lazy", !sys_failed((long)p) && !sys_failed((long)z));
	if (sys_failed((long)p) || sys_failed((long)z))
		return;
	EXPECT("unmap 3 of 16", sys_unmap(p + 2 * PAGE_SIZE, 3 * PAGE_SIZE), 0);
	ok("mapped bytes with a hole", syscall3(SYS_mapped, (long)p, 16 * PAGE_SIZE, MAPPED_BYTES) ==
	   13 * PAGE_SIZE);
	EXPECT("mapped, not all: ENOMEM", syscall2(SYS_mapped, (long)p, 16 * PAGE_SIZE), ENOMEM);
	z[0] = 1, z[9 * PAGE_SIZE] = 1;           /* touched pages of the region: still 16 */
	EXPECT("unmap 2 of lazy 16", sys_unmap(z + 4 * PAGE_SIZE, 2 * PAGE_SIZE), 0);
	ok("mapped bytes of a cut region", syscall3(SYS_mapped, (long)z, 16 * PAGE_SIZE, MAPPED_BYTES) ==
	   14 * PAGE_SIZE);
	ok("mapped bytes of part of a region", syscall3(SYS_mapped, (long)z + 8 * PAGE_SIZE, 5000, MAPPED_BYTES) ==
	   2 * PAGE_SIZE);
	EXPECT("mapped, unknown flag", syscall3(SYS_mapped, (long)p, PAGE_SIZE, 2), EINVAL);
	EXPECT("mapped bytes, kernel text", syscall3(SYS_mapped, 0xffffffff80000000L, PAGE_SIZE, MAPPED_BYTES),
	       ENOMEM);
	sys_unmap(p, 16 * PAGE_SIZE);
	sys_unmap(z, 16 * PAGE_SIZE);
}

/* The kernel writes user memory only where the user may: never through a
 * read-only mapping (CR0.WP), whatever the page's contents mean: its own
 * pseudo-register page, a read-only segment mapping, a page protected
 * read-only, a read-only demand-zero region. Each must be -EFAULT and
 * the page unchanged. */
static void read_only_targets(void)
{
	struct pseudo_page *pp = vp_pseudo();
	uint64_t *self = (uint64_t *)pp;         /* pp->self, the first word */
	uint64_t before = *self;
	long seg = seg_create(PAGE_SIZE);
	long base = seg_map(seg, PROT_READ);      /* the creator maps it read-only */
	ok("seg map read-only", seg >= 0 && !sys_failed(base));
	EXPECT("seg_info out pseudo page", syscall2(SYS_seg_info, seg, self), EFAULT);
	ok("pseudo page unchanged", *self == before);
	if (!sys_failed(base)) {
		EXPECT("seg_info out read-only segment", syscall2(SYS_seg_info, seg, base), EFAULT);
		ok("read-only segment unchanged", *(volatile uint64_t *)base == 0);
		seg_unmap((void *)base);
	}
	char *ro = sys_map(0, PAGE_SIZE, RW);
	if (!sys_failed((long)ro)) {
		sys_protect(ro, PAGE_SIZE, PROT_READ);
		EXPECT("seg_info out protected read-only", syscall2(SYS_seg_info, seg, ro), EFAULT);
		ok("protected page unchanged", *(volatile uint64_t *)ro == 0);
		sys_unmap(ro, PAGE_SIZE);
	}
	char *lz = sys_map(0, PAGE_SIZE, PROT_READ | MAP_LAZY);
	if (!sys_failed((long)lz)) {
		EXPECT("seg_info out read-only lazy", syscall2(SYS_seg_info, seg, lz), EFAULT);
		ok("read-only lazy page unchanged", *(volatile uint64_t *)lz == 0);
		sys_unmap(lz, PAGE_SIZE);
	}
	const char *args[] = { "hello", "0" };
	long id = sys_spawn("hello", 2, args);
	if (id > 0) {
		int *st = (int *)&pp->vp_index;
		int was = *st;
		EXPECT("wait status pseudo page", sys_wait((int)id, st), EFAULT);
		ok("pseudo page vp_index unchanged", *st == was);
		int dummy;
		sys_wait((int)id, &dummy);
	}
	if (seg >= 0)
		syscall1(SYS_cap_drop, seg);
}

int main(void)
{
	unknown_syscalls();
	char *end = edge();
	bad_cputs(end);
	bad_spawn(end);
	bad_wait();
	bad_map();
	wrapping_lengths();
	mapped_bytes();
	read_only_targets();
	EXPECT("getinfo 12345", sys_getinfo(12345), EINVAL);
	EXPECT("getinfo -1", sys_getinfo(-1), EINVAL);

	struct result r;
	result_begin(&r, "badcall");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_array(&r, "failed");
	for (int i = 0; i < failures && i < (int)(sizeof failed / sizeof failed[0]); i++)
		result_str(&r, 0, failed[i]);
	result_close(&r);
	result_end(&r);
	return failures != 0;
}
