/*
 * Physical page allocator: one bit per 4 KiB page (1 = in use), built from
 * the boot memory map. Contiguous runs (kernel stacks) are found next-fit
 * from a hint; single pages are the lowest free ones (hint1: no page below
 * it is free), so a page freed is the next one given. Reuse matters under
 * an emulator: a frame's first write in a boot costs the host a page of
 * its own (QEMU's guest RAM is touched lazily), about ten times a copy
 * of the page under TCG, and a next-fit sweep made every allocation such
 * a first touch until it had gone round all of memory. All bookkeeping
 * is in the bitmaps, in kernel memory: nothing is kept inside a free
 * frame, which a stale TLB entry on some CPU might still reach.
 *
 * With `memcheck`, a freed frame is filled with a pattern that the next
 * allocation checks before zeroing it: a write after free panics with the
 * frame's address (in test runs a panic is the detector). A free of a
 * free page always panics.
 */
#include "kernel.h"
#include "disk.h"

#define MAXPHYS   (16UL << 30)               /* RAM above 16 GiB is ignored */
#define MAXPAGES  (MAXPHYS / PGSIZE)

#define POISON    0x5a5a5a5a5a5a5a5aUL

static uint64_t bitmap[MAXPAGES / 64];
static uint64_t poisoned[MAXPAGES / 64];     /* memcheck: frame holds POISON */
static uint64_t npages, nfree, hint, hint1;
static uint64_t reserve_pages;               /* user allocations leave these */
static uint64_t usable_pages;                /* free at boot */
static struct spinlock pmm_lock = SPINLOCK_INIT("pmm");

/* Waits on the allocator's lock since boot (INFO_LOCK_WAITS). */
uint32_t pmm_lock_waits(void)
{
	return __atomic_load_n(&pmm_lock.waits, __ATOMIC_RELAXED);
}
uint64_t mem_total_bytes, phys_top;

extern char _kernel_start[], _kernel_end[];

static void mark(uint64_t pfn, int used)
{
	if (used)
		bitmap[pfn / 64] |= 1UL << (pfn % 64);
	else
		bitmap[pfn / 64] &= ~(1UL << (pfn % 64));
}

static int used(uint64_t pfn)
{
	return (bitmap[pfn / 64] >> (pfn % 64)) & 1;
}

void pmm_reserve(uint64_t start, uint64_t end)
{
	for (uint64_t p = start / PGSIZE; p < PGROUNDUP(end) / PGSIZE && p < npages; p++)
		if (!used(p)) {
			mark(p, 1);
			nfree--;
		}
}

void pmm_init(void)
{
	memset(bitmap, 0xff, sizeof bitmap);
	for (int i = 0; i < nmmap; i++) {
		struct memrange *r = &mmap_ranges[i];
		uint64_t end = r->base + r->len;
		if (end > phys_top)
			phys_top = end;
		if (r->type != 1)
			continue;
		mem_total_bytes += r->len;
		uint64_t lo = PGROUNDUP(r->base) / PGSIZE, hi = PGROUNDDOWN(MIN(end, MAXPHYS)) / PGSIZE;
		for (uint64_t p = lo; p < hi; p++) {
			if (used(p)) {
				mark(p, 0);
				nfree++;
			}
			if (p + 1 > npages)
				npages = p + 1;
		}
	}
	pmm_reserve(0, 0x100000);   /* BIOS data, the AP trampoline */
	pmm_reserve(K2P(_kernel_start), K2P(_kernel_end));
	for (int i = 0; i < nmodules; i++)
		pmm_reserve(modules[i].start, modules[i].end);
	hint = hint1 = 0x100000 / PGSIZE;
	usable_pages = nfree;
	reserve_pages = MAX((2UL << 20) / PGSIZE, nfree / 64);
}

/* memcheck: frames [pfn, pfn+n) were poisoned when freed; each must still
   be. Their bitmap bits are ours now (marked used), so no lock is needed. */
static void poison_check(uint64_t pfn, uint64_t n)
{
	for (uint64_t p = pfn; p < pfn + n; p++) {
		if (!((poisoned[p / 64] >> (p % 64)) & 1))
			continue;
		uint64_t *w = P2V(p * PGSIZE);
		for (int i = 0; i < (int)(PGSIZE / 8); i++)
			if (w[i] != POISON)
				panic("memcheck: frame %#lx written after free (word %d = %#lx)",
				      p * PGSIZE, i, w[i]);
		__atomic_and_fetch(&poisoned[p / 64], ~(1UL << (p % 64)), __ATOMIC_RELAXED);
	}
}

/* Find n free pages in a row, starting at the hint; pmm_lock held. */
static int64_t find_run(uint64_t n)
{
	for (int pass = 0; pass < 2; pass++) {
		uint64_t start = pass ? 0 : n == 1 ? hint1 : hint, run = 0;
		for (uint64_t p = start; p < npages; p++) {
			if (n == 1 && p % 64 == 0 && bitmap[p / 64] == ~0UL) {
				p += 63;
				continue;
			}
			run = used(p) ? 0 : run + 1;
			if (run == n)
				return (int64_t)(p + 1 - n);
		}
	}
	return -1;
}

/* n pages in a row, leaving at least `keep` free; pmm_lock taken here.
   Zeroed unless `raw` (the caller overwrites every byte first). */
static void *alloc_raw(size_t n, uint64_t keep, int raw)
{
	spin_lock(&pmm_lock);
	int64_t p = n <= nfree && nfree - n >= keep ? find_run(n) : -1;
	if (p < 0) {
		spin_unlock(&pmm_lock);
		return 0;
	}
	for (uint64_t i = 0; i < n; i++)
		mark(p + i, 1);
	nfree -= n;
	if (n == 1)
		hint1 = p + 1;
	else
		hint = p + n;
	spin_unlock(&pmm_lock);
	void *va = P2V((uint64_t)p * PGSIZE);
	if (memcheck)
		poison_check(p, n);
	if (!raw)
		memset(va, 0, n * PGSIZE);
	return va;
}

static void *alloc_keep(size_t n, uint64_t keep)
{
	return alloc_raw(n, keep, 0);
}

/* alloc_raw, and when memory is short, once more after the block
   cache gave back clean buffers (bcache.c; never called with its lock). */
static void *reclaim_raw(size_t n, uint64_t keep, int raw)
{
	void *va = alloc_raw(n, keep, raw);
	if (!va && bcache_reclaim(n + keep))
		va = alloc_raw(n, keep, raw);
	return va;
}

static void *alloc_reclaim(size_t n, uint64_t keep)
{
	return reclaim_raw(n, keep, 0);
}

void *pages_alloc(size_t n)
{
	return alloc_reclaim(n, 0);
}

/* A page for the block cache to grow by: only while twice the reserve
   stays free, and never by reclaiming (bcache.c holds its lock). */
void *page_alloc_cache(void)
{
	return alloc_keep(1, 2 * reserve_pages);
}

void *page_alloc(void)
{
	return pages_alloc(1);
}

/* n pages for something a user caused that is not a user page (a VP's
   kernel stack, a space's top table, a kernel heap page for its objects):
   only if the kernel's reserve is still free after them. Checked under
   pmm_lock, so concurrent callers cannot overdraw it together. */
void *pages_alloc_user(size_t n)
{
	return alloc_reclaim(n, reserve_pages);
}

/* pages_alloc_user(1) not zeroed, for a page the caller fills whole
   before anything can read it (view.c's copies and twins): under TCG a
   page's zeroing costs about as much as its copy. */
void *page_alloc_user_raw(void)
{
	return reclaim_raw(1, reserve_pages, 1);
}

void pages_free(void *va, size_t n)
{
	uint64_t pfn = V2P(va) / PGSIZE;
	if (memcheck) {
		/* Still ours: the bits are checked (double free) below. */
		for (uint64_t i = 0; i < n; i++) {
			uint64_t *w = P2V((pfn + i) * PGSIZE);
			for (int j = 0; j < (int)(PGSIZE / 8); j++)
				w[j] = POISON;
		}
	}
	spin_lock(&pmm_lock);
	for (uint64_t i = 0; i < n; i++) {
		if (pfn + i >= npages || !used(pfn + i))
			panic("pages_free: page %lx is not allocated", (pfn + i) * PGSIZE);
		mark(pfn + i, 0);
		hint1 = MIN(hint1, pfn + i);
		if (memcheck)
			__atomic_or_fetch(&poisoned[(pfn + i) / 64], 1UL << ((pfn + i) % 64), __ATOMIC_RELAXED);
	}
	nfree += n;
	spin_unlock(&pmm_lock);
}

void page_free(void *va)
{
	pages_free(va, 1);
}

uint64_t pmm_free_pages(void)
{
	return nfree;
}

/* Is va in the direct map of memory the allocator manages (a kernel stack,
   a heap page)? For the panic backtrace, which must not fault. */
int pmm_direct(uint64_t va)
{
	return va >= PHYSMAP && va - PHYSMAP < npages * PGSIZE;
}

/* What sp is charged for, in bytes: user pages, page tables, kernel
   stacks and event rings, segment frames, and the kernel heap objects it
   caused (kheap.c: kmalloc_user), its kops counted by number (kop.c). */
static uint64_t used_bytes(struct space *sp)
{
	return (sp->pages + sp->ptpages + sp->kpages + sp->segpages + sp->viewpages) * PGSIZE + sp->kbytes +
	       (uint64_t)sp->nkops * kheap_charge(sizeof(struct kop));
}

uint64_t mem_charged(struct space *sp)
{
	return used_bytes(sp);
}

/* May sp take n more user pages? They must leave the kernel's reserve
   (so its own allocations for every space still succeed) and keep the
   space within its quota. */
int mem_user_ok(struct space *sp, uint64_t n)
{
	if (n > nfree || nfree - n < reserve_pages)
		bcache_reclaim(n + reserve_pages);   /* the block cache gives back clean buffers */
	return n <= nfree && nfree - n >= reserve_pages && mem_quota_ok(sp, n * PGSIZE);
}

/* mem_user_ok for n pages already added to sp's charge (by a caller
   that charges without sp->lock, view.c): the sum is what is checked,
   so two CPUs charging at once cannot both pass on the same room. */
int mem_user_fits(struct space *sp, uint64_t n)
{
	if (n > nfree || nfree - n < reserve_pages)
		bcache_reclaim(n + reserve_pages);
	return n <= nfree && nfree - n >= reserve_pages && mem_quota_ok(sp, 0);
}

/* May sp be charged `bytes` more and stay within its quota? */
int mem_quota_ok(struct space *sp, uint64_t bytes)
{
	return used_bytes(sp) + bytes <= mem_quota_pages() * PGSIZE;
}

/* The per-space quota: memquota=MB, else 3/4 of usable RAM. */
uint64_t mem_quota_pages(void)
{
	if (memquota_mb)
		return memquota_mb * ((1UL << 20) / PGSIZE);
	return usable_pages / 4 * 3;
}
