/*
 * lazymodel OPS SEED: the kernel's demand-zero region table (kernel/lazy.c:
 * sorted, grown on demand, cut by unmap and protect, joined again) checked
 * against a model, one page at a time.
 *
 * A window of W pages is hit by random SYS_map (fixed, demand-zero or
 * eager, read-only or read-write), SYS_unmap and SYS_protect (none, read,
 * read-write) of random runs, each checked against the model's answer
 * (0, -EEXIST over anything used, -ENOMEM over a hole), and probed:
 *   - the kernel reading a page (futex_wait with a wrong value: -EAGAIN
 *     if readable, which fills a demand-zero page, else -EFAULT);
 *   - the kernel writing one (seg_info's copyout: the address if
 *     writable, else -EFAULT);
 *   - the program itself reading or writing a page the model says it
 *     may (a wrong model, or a wrong table, kills the space).
 * Many small regions side by side, with holes and guard pages between,
 * so every search, cut and join path runs. Run under memcheck, the
 * charges must match the tables when the space goes. Ends with
 * @result {"name": "lazymodel", "ops", "mismatches", "regions"...}:
 * mismatches must be 0. (test_security_mem.py::test_lazy_region_model)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <errno.h>
#include <animalib/rng.h>
#include <animalib/result.h>

#define W 512                           /* pages in the window */
#define PROT_RW (PROT_READ | PROT_WRITE)

enum { HOLE, LAZY, PAGE };              /* what a page is */
static struct { char kind, prot; } m[W];
static char *win;
static long seg;
static uint64_t ops, mismatches, nmap, nunmap, nprotect, nread, nwrite, ntouch;

static void expect(long got, long want, const char *what, int a, int n)
{
	if (got == want)
		return;
	mismatches++;
	if (mismatches <= 10)
		printf("lazymodel: op %lu: %s of pages [%d, %d): got %ld, model says %ld\n",
		       (unsigned long)ops, what, a, a + n, got, want);
}

static int any(int a, int n, int kind, int is)
{
	for (int i = a; i < a + n; i++)
		if ((m[i].kind == kind) == is)
			return 1;
	return 0;
}

static void op_map(uint64_t *rs, int a, int n)
{
	int lazy = rand_below(rs, 4) != 0, prot = rand_below(rs, 2) ? PROT_RW : PROT_READ;
	long want = any(a, n, HOLE, 0) ? -EEXIST : (long)(win + a * PAGE_SIZE);
	long got = (long)sys_map(win + a * PAGE_SIZE, n * PAGE_SIZE, prot | (lazy ? MAP_LAZY : 0));
	expect(got, want, lazy ? "lazy map" : "map", a, n);
	if (got == want && want > 0)
		for (int i = a; i < a + n; i++)
			m[i].kind = lazy ? LAZY : PAGE, m[i].prot = (char)prot;
	nmap++;
}

static void op_unmap(int a, int n)
{
	expect(sys_unmap(win + a * PAGE_SIZE, n * PAGE_SIZE), 0, "unmap", a, n);
	for (int i = a; i < a + n; i++)
		m[i].kind = HOLE;
	nunmap++;
}

static void op_protect(uint64_t *rs, int a, int n)
{
	static const int prots[] = { 0, PROT_READ, PROT_RW };
	int prot = prots[rand_below(rs, 3)];
	long want = any(a, n, HOLE, 1) ? -ENOMEM : 0;
	long got = sys_protect(win + a * PAGE_SIZE, n * PAGE_SIZE, prot);
	expect(got, want, "protect", a, n);
	if (got == 0 && want == 0)
		for (int i = a; i < a + n; i++)
			m[i].prot = (char)prot;
	nprotect++;
}

static void probe(uint64_t *rs, int p)
{
	char *va = win + p * PAGE_SIZE + 64 * rand_below(rs, 60);
	int readable = m[p].kind != HOLE && (m[p].prot & PROT_READ);
	int writable = m[p].kind != HOLE && (m[p].prot & PROT_WRITE);
	switch (rand_below(rs, 3)) {
	case 0:
		expect(syscall3(SYS_futex_wait, va, 0x5a5a5a5a, 1), readable ? -EAGAIN : -EFAULT,
		       "kernel read", p, 1);
		nread++;
		break;
	case 1:
		expect(syscall2(SYS_seg_info, seg, va), writable ? syscall2(SYS_seg_info, seg, 0) : -EFAULT,
		       "kernel write", p, 1);
		nwrite++;
		break;
	default:
		if (writable)
			*(volatile char *)va = 1;
		else if (readable)
			(void)*(volatile char *)va;
		ntouch += readable;
	}
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 20000;
	uint64_t rs = argc > 2 ? strtoull(argv[2], 0, 10) : 1;
	/* a free window: placed by the kernel, then given back */
	win = sys_map(0, W * PAGE_SIZE, PROT_RW | MAP_LAZY);
	if (sys_failed((long)win) || sys_unmap(win, W * PAGE_SIZE)) {
		printf("lazymodel: no window\n");
		return 2;
	}
	seg = seg_create(PAGE_SIZE);
	if (seg < 0) {
		printf("lazymodel: no segment\n");
		return 2;
	}
	for (ops = 0; ops < n; ops++) {
		/* mostly short runs, so the window fills with small regions */
		int len = rand_below(&rs, 8) ? 1 + (int)rand_below(&rs, 8) : 1 + (int)rand_below(&rs, W / 2);
		int a = (int)rand_below(&rs, W - len + 1);
		int what = (int)rand_below(&rs, 10);
		if (what < 4)
			op_map(&rs, a, len);
		else if (what < 5)
			op_unmap(a, len);
		else if (what < 7)
			op_protect(&rs, a, len);
		else
			probe(&rs, a + (int)rand_below(&rs, len));
	}
	int used = 0;
	for (int i = 0; i < W; i++)
		used += m[i].kind != HOLE;
	expect(sys_unmap(win, W * PAGE_SIZE), 0, "unmap all", 0, W);
	struct result r;
	result_begin(&r, "lazymodel");
	result_uint(&r, "ops", ops);
	result_uint(&r, "mismatches", mismatches);
	result_uint(&r, "maps", nmap);
	result_uint(&r, "unmaps", nunmap);
	result_uint(&r, "protects", nprotect);
	result_uint(&r, "kernel_reads", nread);
	result_uint(&r, "kernel_writes", nwrite);
	result_uint(&r, "touches", ntouch);
	result_int(&r, "pages_used_at_end", used);
	result_end(&r);
	return mismatches != 0;
}
