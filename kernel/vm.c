/*
 * Page tables. The kernel half (PML4 entries 256..511) is built once here
 * and shared by every address space: a new space copies those 256 entries,
 * and since the kernel never adds a top-level entry after boot, every space
 * sees every kernel mapping. The user half belongs to its space.
 */
#include "kernel.h"

uint64_t *kernel_pml4;
uint64_t kernel_cr3;

extern char _kernel_start[], _etext[], _erodata[], _kernel_end[];

static int idx(uint64_t va, int level)
{
	return (va >> (12 + 9 * level)) & 511;
}

/* Return the level-0 PTE for va, creating tables on the way if asked;
   each table created is counted in *ntab (if given). */
static uint64_t *walk(uint64_t *pml4, uint64_t va, int create, uint64_t *ntab)
{
	uint64_t *t = pml4;
	for (int level = 3; level > 0; level--) {
		uint64_t *e = &t[idx(va, level)];
		if (!(*e & PTE_P)) {
			if (!create)
				return 0;
			void *n = page_alloc();
			if (!n)
				return 0;
			*e = V2P(n) | PTE_P | PTE_W | (va < USER_TOP ? PTE_U : 0);
			if (ntab)
				(*ntab)++;
		} else if (*e & PTE_PS)
			return 0;           /* huge page: not ours to split */
		t = P2V(*e & PTE_ADDR);
	}
	return &t[idx(va, 0)];
}

uint64_t *vm_walk(uint64_t *pml4, uint64_t va, int create)
{
	return walk(pml4, va, create, 0);
}

/* How many page-table pages are missing on the way to va's PTE in sp
   (0..3). sp->lock held or sp not yet running. */
int space_pte_missing(struct space *sp, uint64_t va)
{
	uint64_t *t = sp->pml4;
	for (int level = 3; level > 0; level--) {
		uint64_t e = t[idx(va, level)];
		if (!(e & PTE_P))
			return level;
		t = P2V(e & PTE_ADDR);
	}
	return 0;
}

/*
 * The PTE for user address va of sp, with the tables on the way made if
 * missing. Each table is charged to sp (sp->ptpages, in its quota)
 * before it is built: the tables and `extra` more pages the caller is
 * about to take must fit sp's quota and leave the kernel's reserve
 * (mem_user_ok), and all of them are taken before any is linked in. So
 * a refusal (0) leaves nothing behind. Before, tables were built first
 * and never checked: a space with memquota=8 had system calls fill (or
 * refuse to fill) one lazy word per GiB and took 491 MiB of tables.
 * Nothing missing and no extra: no check (a lookup must work for a space
 * over its quota, e.g. one charged a segment it holds). sp->lock held or
 * sp not yet running (nothing else changes its tables).
 */
uint64_t *space_pte_room(struct space *sp, uint64_t va, uint64_t extra)
{
	int n = space_pte_missing(sp, va);
	if ((n || extra) && !mem_user_ok(sp, n + extra))
		return 0;
	void *pg[3];
	for (int i = 0; i < n; i++)
		if (!(pg[i] = pages_alloc_user(1))) {
			while (i-- > 0)
				page_free(pg[i]);
			return 0;
		}
	sp->ptpages += n;
	uint64_t *t = sp->pml4;
	for (int level = 3; level > 0; level--) {
		uint64_t *e = &t[idx(va, level)];
		if (!(*e & PTE_P))
			*e = V2P(pg[--n]) | PTE_P | PTE_W | PTE_U;
		t = P2V(*e & PTE_ADDR);
	}
	return &t[idx(va, 0)];
}

uint64_t *space_pte(struct space *sp, uint64_t va)
{
	return space_pte_room(sp, va, 0);
}

int vm_map(uint64_t *pml4, uint64_t va, uint64_t pa, uint64_t flags)
{
	uint64_t *pte = vm_walk(pml4, va, 1);
	if (!pte)
		return -ENOMEM;
	*pte = pa | flags | PTE_P;
	return 0;
}

/* Map [pa, pa+len) at va with 2 MiB pages (kernel direct map). */
static void map_huge(uint64_t va, uint64_t pa, uint64_t len, uint64_t flags)
{
	for (uint64_t off = 0; off < len; off += 2UL << 20) {
		uint64_t *t = kernel_pml4;
		for (int level = 3; level > 1; level--) {
			uint64_t *e = &t[idx(va + off, level)];
			if (!(*e & PTE_P))
				*e = V2P(page_alloc()) | PTE_P | PTE_W;
			t = P2V(*e & PTE_ADDR);
		}
		uint64_t a = pa + off;
		/* The top 32 MiB below 4 GiB hold the LAPIC and IOAPIC: uncached. */
		uint64_t cache = (a >= 0xfe000000UL && a < (1UL << 32)) ? PTE_PCD | PTE_PWT : 0;
		t[idx(va + off, 1)] = a | PTE_P | PTE_PS | PTE_G | PTE_NX | flags | cache;
	}
}

void vm_init(void)
{
	kernel_pml4 = page_alloc();
	/* Every kernel-half top-level entry exists from the start (see above). */
	for (int i = 256; i < 512; i++)
		kernel_pml4[i] = V2P(page_alloc()) | PTE_P | PTE_W;

	uint64_t top = MAX(phys_top, 1UL << 32);
	map_huge(PHYSMAP, 0, PGROUNDUP(top), PTE_W);

	/* Kernel image with 4 KiB pages: text RX, rodata R, data+bss RW. */
	for (uint64_t va = (uint64_t)_kernel_start; va < (uint64_t)_kernel_end; va += PGSIZE) {
		uint64_t f = PTE_G;
		if (va >= (uint64_t)_etext)
			f |= PTE_NX;
		if (va >= (uint64_t)_erodata)
			f |= PTE_W;
		if (vm_map(kernel_pml4, va, K2P(va), f) < 0)
			panic("vm_init: out of memory");
	}
	kernel_cr3 = V2P(kernel_pml4);
	lcr4(rcr4() | (1 << 7));    /* PGE: global kernel pages survive CR3 loads */
	lcr3(kernel_cr3);
}

/* A new space's top table: only a user's spawn asks, so it leaves the
   kernel's reserve. */
uint64_t *vm_new_pml4(void)
{
	uint64_t *p = pages_alloc_user(1);
	if (p)
		memcpy(p + 256, kernel_pml4 + 256, 256 * sizeof(uint64_t));
	return p;
}

/* Free the user half: owned frames, then the tables themselves; count
   both in n[0] and n[1] (memcheck compares them with the charges). */
static void free_level(uint64_t *t, int level, uint64_t n[2])
{
	for (int i = 0; i < 512; i++) {
		uint64_t e = t[i];
		if (!(e & (level ? PTE_P : PTE_MAPPED)))   /* (a PROT_NONE frame is the space's too) */
			continue;
		void *next = P2V(e & PTE_ADDR);
		if (level > 0)
			free_level(next, level - 1, n);
		else if (!(e & PTE_SHARED)) {
			if (e & (PTE_D | PTE_FDIRTY))
				fshare_dirty(V2P(next));   /* (a shared file page's stores: fshare.c) */
			frame_put(V2P(next));    /* (a frame a fork shares goes with its last holder) */
			n[0]++;
		}
	}
	page_free(t);
	n[1]++;
}

/* Returns the frames and tables freed in n (the top table included). */
void vm_free_user(uint64_t *pml4, uint64_t n[2])
{
	n[0] = n[1] = 0;
	for (int i = 0; i < 256; i++)
		if (pml4[i] & PTE_P)
			free_level(P2V(pml4[i] & PTE_ADDR), 2, n);
	page_free(pml4);
	n[1]++;
}


/* The first level-0 PTE holding a frame (PTE_MAPPED: present, or
   PROT_NONE) in [*va, end), or 0; *va is set to its
   address. An absent table is skipped whole: a user range may span
   terabytes (a fuzzed unmap, a map's overlap check), and stepping through
   it a page at a time with the space lock held would stall the CPU for
   hours. So the cost is bounded by the tables that exist. */
uint64_t *vm_next(uint64_t *pml4, uint64_t *va, uint64_t end)
{
	uint64_t a = *va;
	while (a < end) {
		uint64_t *t = pml4;
		int level = 3;
		for (; level > 0; level--) {
			uint64_t e = t[idx(a, level)];
			if (!(e & PTE_P) || (e & PTE_PS))
				break;
			t = P2V(e & PTE_ADDR);
		}
		if (level == 0 && (t[idx(a, 0)] & PTE_MAPPED)) {
			*va = a;
			return &t[idx(a, 0)];
		}
		uint64_t span = 1UL << (12 + 9 * level);
		uint64_t next = (a & ~(span - 1)) + span;
		if (next <= a)
			break;          /* wrapped past the top */
		a = next;
	}
	return 0;
}

/*
 * Page tables an unmap left empty. Without this, a space mapping and
 * unmapping at ever new addresses kept every table it ever had: a
 * thread create/exit loop, each stack placed next-fit higher, ended a
 * boot with 90,135 table pages (test_createsig, naive-2: out of memory),
 * a cost bounded by no mapping the space had. Linux frees them too
 * (free_pgtables).
 *
 * A table may not go while anything can still walk it: the CPUs through
 * their paging-structure caches (Intel SDM 3A 4.10.3: a PDE cached on
 * another CPU names the old PT until that CPU flushes), and kernel code
 * holding a PTE pointer. So it is only unlinked here, under sp->lock
 * (every kernel walk of sp's tables holds it, or re-walks after taking
 * it), and freed by the caller after tlb_shootdown, as the frames are
 * (tlb.c). Nothing is written into it meanwhile: it stays all zeros.
 *
 * Kept: the tables of the VP range (its kernel pages', made at vp_create
 * and assumed since) and those under a segment sp maps (segprot.c
 * rewrites its entries, 0 for PROT_NONE, in tables made at seg_map).
 * And the (at most 3) over sp->map_next, where the next placed map goes
 * (sysmem.c): a loop mapping and unmapping 64 KiB took a PT, zeroed it
 * and freed it again each time, 20% more per map+unmap (icount, ns per
 * pair: 18,983 never freeing, 22,718 so, 19,309 keeping these).
 */
static int table_empty(const uint64_t *t)
{
	for (int i = 0; i < 512; i++)
		if (t[i])
			return 0;
	return 1;
}

static int prune_level(struct space *sp, uint64_t *t, int level, uint64_t base,
		       uint64_t lo, uint64_t hi, struct frame_batch *b)
{
	uint64_t span = 1UL << (12 + 9 * level);        /* bytes an entry of t covers */
	int i = lo > base ? (int)((lo - base) / span) : 0;
	int last = (int)MIN(511, (hi - 1 - base) / span);
	for (; i <= last; i++) {
		uint64_t e = t[i], cb = base + (uint64_t)i * span;
		if (!(e & PTE_P) || (e & PTE_PS))
			continue;
		uint64_t *c = P2V(e & PTE_ADDR);
		if (level > 1 && !prune_level(sp, c, level - 1, cb, lo, hi, b))
			return 0;
		if (sp->map_next - cb < span || (cb < VP_RESERVED_HI && cb + span > VP_RESERVED_LO) ||
		    !table_empty(c) || segmap_in(sp, cb, cb + span))
			continue;
		if (b->nt == NELEM(b->tab))
			return 0;
		t[i] = 0;
		view_unlink(sp, cb, level, e);   /* (a view's copy of the entry: view.c) */
		b->tab[b->nt++] = e & PTE_ADDR;
		sp->ptpages--;
	}
	return 1;
}

/* Unlink sp's user tables that [lo, hi) touches and that hold no entry,
   the lowest first (a PD whose last PT goes goes too), into b->tab;
   returns 0 if b filled first (call again after freeing them). The cost
   is bounded by the tables that exist. sp->lock held. */
int vm_prune(struct space *sp, uint64_t lo, uint64_t hi, struct frame_batch *b)
{
	hi = MIN(hi, USER_TOP);
	return lo >= hi || prune_level(sp, sp->pml4, 3, 0, lo, hi, b);
}

/* Is any page of [va, va+len) mapped? */
int vm_mapped(uint64_t *pml4, uint64_t va, uint64_t len)
{
	return vm_next(pml4, &va, va + len) != 0;
}
