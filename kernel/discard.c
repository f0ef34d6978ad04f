/*
 * SYS_discard: throw away the contents of the caller's own pages, as
 * Linux's madvise(MADV_DONTNEED) does for private anonymous memory. From
 * the call on, every page of the range reads as zeros, with the access it
 * had, and its frame goes back to the kernel (ulib's madvise zeroed the
 * pages in user mode before, and kept them).
 *
 * Every page must be mapped or demand-zero, else -ENOMEM and nothing
 * changes (Linux's answer for a hole). Under the space's lock, the
 * mapped pages that no demand-zero region covers get one, with each
 * page's own access (a run of pages with the same access is one region,
 * joined to a neighbour that matches), so a touch of the range can never
 * meet a hole, not even from another CPU while the call runs; then
 * space_unmap clears the pages and frees their frames after the TLB
 * shootdown, as SYS_unmap does. A touch after that fills a zeroed page.
 * A write racing with the call from another thread may be lost, as on
 * Linux. Regions past MAXLAZY_SPACE or the quota: -ENOMEM, nothing
 * changed. In a file's mapping (fmap.c) a page comes back from the
 * file, not as zeros; a shared one's writes are written back first.
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

/* The access a user PTE gives (PROT_NONE's PTE_NONE: no PTE_U). A
   copy-on-write entry (a fork's) is writable, though its W bit is off. */
static uint64_t pte_access(uint64_t pte)
{
	return (pte & (PTE_U | PTE_W | PTE_NX)) | (pte & PTE_COW ? PTE_W : 0);
}

/* The runs of [a, b) mapped but in no region, with one access each:
   count them (add 0), or give each a region (add 1). sp->lock held. */
static int cover_pages(struct space *sp, uint64_t a, uint64_t b, int add)
{
	uint64_t va = a, start = 0, end = 0, fl = 0, *pte;
	int runs = 0;
	for (;; va += PGSIZE) {
		pte = vm_next(sp->pml4, &va, b);
		uint64_t f = pte ? pte_access(*pte) : 0;
		int take = pte && !(*pte & (PTE_KERNEL | PTE_SHARED)) && !lazy_region(sp, va);
		if (end && (!take || va != end || f != fl)) {     /* the run so far ends */
			if (add)
				lazy_cover(sp, start, end, fl);
			runs++;
			end = 0;
		}
		if (!pte)
			return runs;
		if (take && !end) {
			start = va;
			fl = f;
		}
		if (take)
			end = va + PGSIZE;
	}
}

long sys_discard(uint64_t addr, uint64_t len, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	struct space *sp = myvp()->space;
	long bad = own_range(addr, &len);
	if (bad)
		return bad;
	if (fmap_flush(addr, len) == -EBWAIT)
		return 0;                /* (a shared file page's write-back waits: the call runs again) */
	spin_lock(&sp->lock);
	long r = !all_mapped(sp, addr, len) ? -ENOMEM : lazy_room(sp, cover_pages(sp, addr, addr + len, 0));
	if (!r)
		cover_pages(sp, addr, addr + len, 1);
	spin_unlock(&sp->lock);
	if (!r)
		space_unmap(sp, addr, len);  /* frames freed after the shootdown */
	return r;
}
