/*
 * SYS_seg_protect: the protection of pages of a segment in the caller's
 * own mapping (mprotect of MAP_SHARED | MAP_ANONYMOUS memory, which is a
 * segment: ulib/libc/mshared.c). Each space sets its own PTEs only; the
 * frames stay the segment's (a page under PROT_NONE has no PTE, and is
 * put back from the segment's frame list), so nothing is freed here and
 * no frame's life depends on it. Write access needs a mapping made
 * writable (SYS_seg_map with PROT_WRITE, which needed SEG_WRITE). A fork
 * copies the PTEs as they are (kernel/fork.c).
 */
#include "kernel.h"
#include <anima/syscall.h>

/* (addr, len, prot) -> the length of the segment mapped at addr. addr is
   page-aligned and [addr, addr + len) lies in one segment the caller
   maps (-ENOMEM if not, as SYS_protect for a hole); len 0 changes
   nothing (a query). prot: PROT_NONE, PROT_READ or PROT_READ|PROT_WRITE. */
long sys_seg_protect(uint64_t addr, uint64_t len, uint64_t prot, uint64_t d, uint64_t e, uint64_t f)
{
	(void)d, (void)e, (void)f;
	struct space *sp = myvp()->space;
	if (addr % PGSIZE || (prot & ~(uint64_t)(PROT_READ | PROT_WRITE)) || prot == PROT_WRITE)
		return -EINVAL;
	if (len > SEG_MAXLEN)
		return -ENOMEM;
	len = PGROUNDUP(len);
	spin_lock(&sp->lock);
	struct segmap *m = segmap_at(sp, addr);
	struct seg *s = m ? m->seg : 0;
	long r = s ? (long)s->len : -ENOMEM;
	if (s && addr + len > s->base + s->len)
		r = -ENOMEM;
	else if (s && (prot & PROT_WRITE) && !(m->prot & PROT_WRITE))
		r = -EACCES;
	uint64_t flags = PTE_P | PTE_U | PTE_NX | PTE_SHARED | (prot & PROT_WRITE ? PTE_W : 0);
	for (uint64_t va = addr; r > 0 && va < addr + len; va += PGSIZE) {
		uint64_t *pte = space_pte(sp, va);   /* (made at seg_map: no allocation) */
		if (pte)
			*pte = prot ? s->frames[(va - s->base) / PGSIZE] | flags : 0;
	}
	spin_unlock(&sp->lock);
	if (r > 0 && len)
		tlb_shootdown(sp);       /* no CPU keeps the access taken away */
	return r;
}
