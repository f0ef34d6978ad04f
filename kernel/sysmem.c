/* Memory syscalls: map zeroed pages into the caller's space, unmap them. */
#include "kernel.h"
#include <anima/syscall.h>

long sys_map(uint64_t addr, uint64_t len, uint64_t prot, uint64_t d, uint64_t e, uint64_t f)
{
	(void)e, (void)f;
	struct space *sp = myvp()->space;
	if (!len || addr % PGSIZE || (prot & ~(uint64_t)(PROT_READ | PROT_WRITE | PROT_EXEC | MAP_LAZY)))
		return -EINVAL;
	if (len > USER_TOP)
		return -ENOMEM;
	len = PGROUNDUP(len);
	if (!(prot & MAP_LAZY) && len / PGSIZE > pmm_free_pages())
		return -ENOMEM;
	uint64_t flags = PTE_U | (prot & PROT_WRITE ? PTE_W : 0) | (prot & PROT_EXEC ? 0 : PTE_NX);
	spin_lock(&sp->lock);
	if (!addr) {
		addr = sp->map_next;
		if (len > USER_STACK_TOP - USER_STACK_SIZE - addr) {
			spin_unlock(&sp->lock);
			return -ENOMEM;
		}
		sp->map_next += len + PGSIZE;      /* a guard page between mappings */
	} else if (addr < USER_BASE || !user_range_ok(addr, len)) {
		spin_unlock(&sp->lock);
		return -EINVAL;
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
		void *pg = page_alloc();
		if (!pg || vm_map(sp->pml4, va, V2P(pg), flags) < 0) {
			if (pg)
				page_free(pg);
			sp->pages -= vm_unmap_range(sp->pml4, addr, va - addr);
			spin_unlock(&sp->lock);
			return -ENOMEM;
		}
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
	spin_lock(&sp->lock);
	struct page_list freed = { 0 };
	lazy_remove(sp, addr, len);
	sp->pages -= vm_unmap_collect(sp->pml4, addr, len, &freed);
	spin_unlock(&sp->lock);
	tlb_shootdown(sp);
	page_list_free(&freed);
	return 0;
}
