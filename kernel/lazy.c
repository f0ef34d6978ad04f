/*
 * Demand-zero regions (SYS_map with MAP_LAZY): nothing is mapped until a
 * page is first touched; then a zeroed page appears after the region's
 * simulated latency. With a latency, the fault is a blocking operation
 * (kop.c): only the faulting thread waits if its VP takes upcalls.
 */
#include "kernel.h"
#include <anima/syscall.h>

long lazy_add(struct space *sp, uint64_t addr, uint64_t len, uint64_t flags, uint64_t latency)
{
	if (sp->nlazy == (int)NELEM(sp->lazy))
		return -ENOMEM;
	sp->lazy[sp->nlazy++] = (struct lazy){ addr, addr + len, flags, MIN(latency, 10000000000UL) };
	return 0;
}

void lazy_remove(struct space *sp, uint64_t addr, uint64_t len)
{
	for (int i = 0; i < sp->nlazy; i++)
		if (sp->lazy[i].start >= addr && sp->lazy[i].end <= addr + len)
			sp->lazy[i--] = sp->lazy[--sp->nlazy];
}

int lazy_overlaps(struct space *sp, uint64_t addr, uint64_t len)
{
	for (int i = 0; i < sp->nlazy; i++)
		if (sp->lazy[i].start < addr + len && addr < sp->lazy[i].end)
			return 1;
	return 0;
}

/* The region of sp holding va that allows an access with page-fault
   error code err, or 0; sp->lock held. */
static struct lazy *lazy_find(struct space *sp, uint64_t va, uint64_t err)
{
	for (int i = 0; i < sp->nlazy; i++) {
		struct lazy *r = &sp->lazy[i];
		if (va >= r->start && va < r->end)
			return ((err & PF_W) && !(r->flags & PTE_W)) || ((err & PF_I) && (r->flags & PTE_NX)) ? 0 : r;
	}
	return 0;
}

/*
 * The kernel touched an untouched demand-zero page on the user's behalf
 * (a syscall's copy, a futex's key): map a zeroed page now. The region's
 * latency is not applied: the kernel is in the middle of the call, with
 * no thread to block. Returns 1 if the page is mapped now (by us or by a
 * racing fault), 0 if va is not in a region that allows the access or
 * memory ran out (the caller's -EFAULT / -ENOMEM path).
 */
int lazy_fill(struct space *sp, uint64_t va, uint64_t err)
{
	spin_lock(&sp->lock);
	struct lazy *r = lazy_find(sp, va, err);
	uint64_t *pte = r ? space_pte(sp, PGROUNDDOWN(va)) : 0;
	int ok = pte && (*pte & PTE_P);          /* a racing fault mapped it */
	if (pte && !ok && mem_user_ok(sp, 1)) {
		void *pg = page_alloc();
		if (pg) {
			*pte = V2P(pg) | PTE_P | r->flags;
			sp->pages++;
			ok = 1;
		}
	}
	spin_unlock(&sp->lock);
	return ok;
}

/* A user page fault at va. Returns 1 if handled (the access can be
   retried, or the thread is now blocked), 0 if it is a real fault. */
int lazy_fault(struct trapframe *tf, uint64_t va, uint64_t err)
{
	struct space *sp = myvp()->space;
	if (err & PF_P)
		return 0;                /* protection, not absence */
	spin_lock(&sp->lock);
	struct lazy *r = lazy_find(sp, va, err);
	if (!r) {
		spin_unlock(&sp->lock);
		return 0;
	}
	uint64_t flags = r->flags, latency = r->latency;
	void *pg = mem_user_ok(sp, 1) ? page_alloc() : 0;
	if (!pg) {
		spin_unlock(&sp->lock);
		space_kill(sp, "out of memory", va, tf->rip, "demand-zero page");
		return 1;
	}
	if (!latency) {
		uint64_t *pte = space_pte(sp, PGROUNDDOWN(va));
		if (pte && !(*pte & PTE_P)) {
			*pte = V2P(pg) | PTE_P | flags;
			sp->pages++;
			pg = 0;
		}
		spin_unlock(&sp->lock);
		if (pg)
			page_free(pg);
		return 1;
	}
	spin_unlock(&sp->lock);
	struct kop *op = kop_alloc(BLK_PAGE);
	if (!op) {
		page_free(pg);
		return 0;
	}
	op->fault_va = PGROUNDDOWN(va);
	op->result = (uint64_t)pg;       /* the page, until it is mapped */
	op->arg = flags;
	spin_lock(&kop_lock);
	op->wake_ns = now_ns() + latency;
	kop_wait(op, tf);
	return 1;
}
