/*
 * SYS_protect: change the access to the caller's own pages, as mprotect.
 *
 * Every page of [addr, addr+len) must be mapped (a page, or a part of a
 * demand-zero region), else -ENOMEM and nothing changes; the kernel's
 * ranges (the VP range, the segment window) are -EPERM, as for SYS_map.
 * Write access to a file's MAP_SHARED pages mapped through a read-only
 * descriptor is -EACCES (Linux's): their frames are every space's.
 * PROT_NONE keeps the frames but makes the pages not present (PTE_NONE,
 * mmu.h): a user access faults (the space is killed, as by a SIGSEGV),
 * and so does the kernel's copy in a system call (-EFAULT, as Linux). A demand-zero region is
 * split where the range cuts it (no room for the pieces, MAXLAZY_SPACE
 * or the quota: -ENOMEM, nothing changed), pieces that meet with the
 * same access are joined again, and its pages keep arriving with the region's access of the
 * moment (kop.c asks lazy_flags).
 *
 * The page tables change under the space's lock; then every CPU that may
 * cache the old access flushes (tlb_shootdown) before the call returns:
 * no thread of the space can use the old access after it. A call that
 * only adds access (write to a read-only page, any access to a page not
 * present) takes nothing away, so it flushes nothing: a not-present entry
 * is never cached, and a write through a stale read-only one faults, finds
 * W in the entry and is retried (cow_break, from user mode and from the
 * kernel's copies alike). With 8 threads of a space on 8 CPUs each
 * switching a page of its own read-only and back, the shootdowns were
 * what one call cost beyond a lone thread's (progs/workloads/vmops.c). The cost under
 * the lock is bounded by what the space has mapped: absent tables are
 * skipped whole (vm_next), never stepped through a page at a time.
 */
#include "kernel.h"
#include <anima/syscall.h>
#include <anima/vp.h>
#include <anima/seg.h>

/* The PTE flags of a protection (PTE_P apart). */
static uint64_t pte_flags(uint64_t prot)
{
	if (!(prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		return PTE_NX;               /* PROT_NONE: no user bit (pte_user: not present) */
	return PTE_U | (prot & PROT_WRITE ? PTE_W : 0) | (prot & PROT_EXEC ? 0 : PTE_NX);
}

/* Is [a, b) covered by sp's demand-zero regions? sp->lock held. */
static int lazy_covers(struct space *sp, uint64_t a, uint64_t b)
{
	for (struct lazy *r; a < b; a = r->end)
		if (!(r = lazy_region(sp, a)))
			return 0;
	return 1;
}

/* Is every page of [a, a+len) mapped or demand-zero? sp->lock held. */
int all_mapped(struct space *sp, uint64_t a, uint64_t len)
{
	uint64_t end = a + len, va = a;
	while (va < end) {
		uint64_t at = va;
		if (!vm_next(sp->pml4, &at, end))
			at = end;                /* no page left: the rest must be lazy */
		if (!lazy_covers(sp, va, at))
			return 0;
		va = at + PGSIZE;
	}
	return 1;
}

/* The regions meeting [a, b): [*i, j). */
static int lazy_span(struct space *sp, uint64_t a, uint64_t b, int *i)
{
	struct lazy *r = lazy_first(sp, a, b - a);
	*i = r ? r - sp->lazy : 0;
	int j = *i;
	while (r && j < sp->nlazy && sp->lazy[j].start < b)
		j++;
	return j;
}

/* Slots the regions cut by [a, b) need beyond the ones they have: one
   for a cut inside the first, one for a cut inside the last. */
static int lazy_extra(struct space *sp, uint64_t a, uint64_t b)
{
	int i, j = lazy_span(sp, a, b, &i);
	return i == j ? 0 : (sp->lazy[i].start < a) + (b < sp->lazy[j - 1].end);
}

/* Give the parts of sp's regions inside [a, b) the flags f, cutting
   them where needed (lazy_room made room for lazy_extra's count), then
   joining the pieces that now match their neighbours. sp->lock held. */
static void lazy_protect(struct space *sp, uint64_t a, uint64_t b, uint64_t f)
{
	int i, j = lazy_span(sp, a, b, &i);
	if (i == j)
		return;
	struct lazy first = sp->lazy[i], last = sp->lazy[j - 1];
	int k = sp->nlazy;
	int cuts = (first.start < a) + (b < last.end);
	memmove(&sp->lazy[j + cuts], &sp->lazy[j], (k - j) * sizeof first);
	if (first.start < a)             /* the piece below a keeps its access */
		memmove(&sp->lazy[i + 1], &sp->lazy[i], (j - i) * sizeof first);
	sp->nlazy += cuts;
	ino_regions(&first, first.start < a, 1);      /* (a cut file region: one more hold, orphan.c) */
	ino_regions(&last, b < last.end, 1);
	int lo = i + (first.start < a), hi = j + (first.start < a);   /* the regions in [a, b) */
	if (first.start < a) {
		sp->lazy[i].end = a;
		sp->lazy[lo].start = a;
	}
	if (b < last.end) {
		sp->lazy[hi] = last;
		sp->lazy[hi].start = b;
		sp->lazy[hi - 1].end = b;
	}
	for (int x = lo; x < hi; x++)
		sp->lazy[x].flags = f;
	/* Join from the top down, so the indices below stay good. */
	for (int x = MIN(hi, sp->nlazy - 1); x >= lo - 1; x--)
		lazy_join(sp, x);
}

/* Must a CPU that cached entry old drop it when the entry becomes new?
   Not if old was not present (never cached), nor if only W was added (and
   the hardware's A and D bits or the software's COW mark differ): the
   stale entry allows less, and its fault is retried. */
static int takes_away(uint64_t old, uint64_t new)
{
	uint64_t same = ~(PTE_A | PTE_D | PTE_W | PTE_COW);
	return (old & PTE_P) && ((old & same) != (new & same) || ((old & PTE_W) && !(new & PTE_W)));
}

/* The checks of a call on the caller's own pages (protect, discard):
   0 with *len rounded up to pages, or -EINVAL (no length, unaligned),
   -ENOMEM (not the space's memory: unmapped, as Linux says), -EPERM (the
   VP range or the segment window). */
long own_range(uint64_t addr, uint64_t *len)
{
	if (!*len || addr % PGSIZE)
		return -EINVAL;
	if (*len > USER_TOP || addr < USER_BASE || !user_range_ok(addr, PGROUNDUP(*len)))
		return -ENOMEM;
	*len = PGROUNDUP(*len);
	if ((addr < VP_RESERVED_HI && addr + *len > VP_RESERVED_LO) || in_seg_window(addr, *len))
		return -EPERM;
	return 0;
}

/* Does [a, b) meet a file region shared through a read-only descriptor
   (no store may reach its frames: fmap.c)? sp->lock held. */
static int shared_ro(struct space *sp, uint64_t a, uint64_t b)
{
	int i, j = lazy_span(sp, a, b, &i);
	for (; i < j; i++)
		if (sp->lazy[i].ino && sp->lazy[i].shared == LAZY_SHARED_RO)
			return 1;
	return 0;
}

long sys_protect(uint64_t addr, uint64_t len, uint64_t prot, uint64_t d, uint64_t e, uint64_t f)
{
	(void)d, (void)e, (void)f;
	struct space *sp = myvp()->space;
	if (prot & ~(uint64_t)(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	long bad = own_range(addr, &len);
	if (bad)
		return bad;
	uint64_t fl = pte_flags(prot);
	int flush = 0;
	spin_lock(&sp->lock);
	long r = !all_mapped(sp, addr, len) ? -ENOMEM :
		 (prot & PROT_WRITE) && shared_ro(sp, addr, addr + len) ? -EACCES :   /* (Linux's) */
		 lazy_room(sp, lazy_extra(sp, addr, addr + len));
	if (!r) {
		lazy_protect(sp, addr, addr + len, fl);
		uint64_t va = addr, *pte;
		while ((pte = vm_next(sp->pml4, &va, addr + len))) {
			if (!(*pte & (PTE_KERNEL | PTE_SHARED))) {   /* (none here: the kernel's ranges are out) */
				uint64_t e = cow_pte(*pte & PTE_ADDR, fl);   /* (W waits while a fork shares it) */
				flush |= takes_away(*pte, e);
				*pte = e;
			}
			va += PGSIZE;
		}
	}
	spin_unlock(&sp->lock);
	if (flush)
		tlb_shootdown(sp);           /* no spin lock held: see tlb.c */
	return r;
}

/* The bytes of [a, a+len) mapped or demand-zero: the regions' part of
   it, and the pages outside them (a region's own pages are in its part:
   the walk jumps past it). sp->lock held. */
static uint64_t mapped_bytes(struct space *sp, uint64_t a, uint64_t len)
{
	uint64_t end = a + len, n = 0, va = a;
	for (struct lazy *r = lazy_first(sp, a, len); r && r < sp->lazy + sp->nlazy && r->start < end; r++)
		n += MIN(r->end, end) - MAX(r->start, a);
	while (vm_next(sp->pml4, &va, end)) {
		struct lazy *r = lazy_region(sp, va);
		if (!r)
			n += PGSIZE;
		va = r ? r->end : va + PGSIZE;
	}
	return n;
}

/* (addr, len, flags) -> 0: every page of the range is mapped or
   demand-zero, else -ENOMEM, as Linux's mlock and munlock answer for a
   hole; with MAPPED_BYTES, how many of its bytes are (what an unmap of
   it takes away: the runtime's RLIMIT_AS count). */
long sys_mapped(uint64_t addr, uint64_t len, uint64_t flags, uint64_t d, uint64_t e, uint64_t f)
{
	(void)d, (void)e, (void)f;
	struct space *sp = myvp()->space;
	if (flags & ~(uint64_t)MAPPED_BYTES)
		return -EINVAL;
	long r = own_range(addr, &len);
	if (r)
		return r;
	spin_lock(&sp->lock);
	r = flags ? (long)mapped_bytes(sp, addr, len) : all_mapped(sp, addr, len) ? 0 : -ENOMEM;
	spin_unlock(&sp->lock);
	return r;
}
