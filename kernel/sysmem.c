/*
 * Memory syscalls: map zeroed pages into the caller's space, unmap them.
 *
 * Rules (docs/abi.md): the VP range [VP_RESERVED_LO, VP_RESERVED_HI) is
 * the kernel's, every slot, used or not, and so is the segment window
 * [SEG_BASE, SEG_TOP) (seg.c), so neither call touches them (-EPERM). A map never replaces anything: a fixed address that overlaps
 * a page or a lazy region is -EEXIST, and addr 0 places the mapping in a
 * hole with nothing mapped or lazy in it, below the reserved range. User
 * pages leave a kernel reserve and stay within the space's quota (mem.c).
 */
#include "kernel.h"
#include <anima/syscall.h>
#include <anima/vp.h>
#include <anima/seg.h>

/* Does [addr, addr+len) touch the kernel-owned VP range? */
static int touches_reserved(uint64_t addr, uint64_t len)
{
	return (addr < VP_RESERVED_HI && addr + len > VP_RESERVED_LO) || in_seg_window(addr, len);
}

/* The first used address (a mapped page or a lazy region) in [a, a+len),
   with *next set to the first address past that use; 0 if none. */
static int range_used(struct space *sp, uint64_t a, uint64_t len, uint64_t *next)
{
	for (int i = 0; i < sp->nlazy; i++)
		if (sp->lazy[i].start < a + len && a < sp->lazy[i].end) {
			*next = sp->lazy[i].end;
			return 1;
		}
	uint64_t va = a;
	if (vm_next(sp->pml4, &va, a + len)) {
		*next = va + PGSIZE;
		return 1;
	}
	return 0;
}

/* Find room for len bytes (plus a guard page after them) between `from`
   and the reserved range; 0 if none. Each step skips past one used page
   or lazy region, so the cost is bounded by what the space has mapped.
   sp->lock held. */
static uint64_t place_from(struct space *sp, uint64_t from, uint64_t len)
{
	uint64_t a = from, next;
	while (a <= VP_RESERVED_LO && len + PGSIZE <= VP_RESERVED_LO - a) {
		if (in_seg_window(a, len + PGSIZE)) {
			a = SEG_TOP;             /* (below USER_MAP_BASE today: a safety net) */
			continue;
		}
		if (!range_used(sp, a, len + PGSIZE, &next))
			return a;
		a = PGROUNDUP(next) + PGSIZE;   /* a guard page after the used one too */
	}
	return 0;
}

static uint64_t place(struct space *sp, uint64_t len)
{
	uint64_t a = place_from(sp, sp->map_next, len);
	if (!a && sp->map_next != USER_MAP_BASE)
		a = place_from(sp, USER_MAP_BASE, len);   /* holes left by unmaps */
	if (a)
		sp->map_next = a + len + PGSIZE;
	return a;
}

long sys_map(uint64_t addr, uint64_t len, uint64_t prot, uint64_t d, uint64_t e, uint64_t f)
{
	(void)e, (void)f;
	struct space *sp = myvp()->space;
	if (!len || addr % PGSIZE || (prot & ~(uint64_t)(PROT_READ | PROT_WRITE | PROT_EXEC | MAP_LAZY)))
		return -EINVAL;
	if (len > USER_TOP)
		return -ENOMEM;
	len = PGROUNDUP(len);
	uint64_t flags = PTE_U | (prot & PROT_WRITE ? PTE_W : 0) | (prot & PROT_EXEC ? 0 : PTE_NX);
	if (addr && (addr < USER_BASE || !user_range_ok(addr, len)))
		return -EINVAL;
	if (addr && touches_reserved(addr, len))
		return -EPERM;
	spin_lock(&sp->lock);
	if (!(prot & MAP_LAZY) && !mem_user_ok(sp, len / PGSIZE)) {
		spin_unlock(&sp->lock);
		return -ENOMEM;
	}
	if (!addr) {
		if (!(addr = place(sp, len))) {
			spin_unlock(&sp->lock);
			return -ENOMEM;
		}
	} else if (vm_mapped(sp->pml4, addr, len) || lazy_overlaps(sp, addr, len)) {
		spin_unlock(&sp->lock);
		return -EEXIST;
	}
	if (prot & MAP_LAZY) {
		long r = lazy_add(sp, addr, len, flags, d);
		spin_unlock(&sp->lock);
		return r < 0 ? r : (long)addr;
	}
	for (uint64_t va = addr; va < addr + len; va += PGSIZE) {
		uint64_t *pte = space_pte(sp, va);
		void *pg = pte ? page_alloc() : 0;
		if (!pg) {
			/* Undo what we mapped. A sibling VP on another CPU may
			   already have touched those pages: free them only
			   after the shootdown (space_unmap), without the lock. */
			spin_unlock(&sp->lock);
			space_unmap(sp, addr, va - addr);
			return -ENOMEM;
		}
		*pte = V2P(pg) | flags | PTE_P;
		sp->pages++;
	}
	spin_unlock(&sp->lock);
	return (long)addr;
}

long sys_unmap(uint64_t addr, uint64_t len, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	struct space *sp = myvp()->space;
	if (!len || addr % PGSIZE || addr < USER_BASE || !user_range_ok(addr, PGROUNDUP(len)))
		return -EINVAL;
	len = PGROUNDUP(len);
	if (touches_reserved(addr, len))
		return -EPERM;
	spin_lock(&sp->lock);
	lazy_remove(sp, addr, len);
	spin_unlock(&sp->lock);
	space_unmap(sp, addr, len);
	return 0;
}
