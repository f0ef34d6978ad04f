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

/* Take [a, a+len) out of sp's regions: a region inside goes, one cut at
   an end shrinks, and one with the range inside splits in two, which
   takes a slot (none left: -ENOMEM, nothing changed). Before, only
   regions wholly inside went: the rest of a partly unmapped region kept
   filling pages on a touch, and its hole could not be mapped again.
   sp->lock held. */
long lazy_remove(struct space *sp, uint64_t a, uint64_t len)
{
	uint64_t b = a + len;
	int splits = 0;
	for (int i = 0; i < sp->nlazy; i++)
		splits += sp->lazy[i].start < a && b < sp->lazy[i].end;
	if (sp->nlazy + splits > (int)NELEM(sp->lazy))
		return -ENOMEM;
	for (int i = 0; i < sp->nlazy; i++) {
		struct lazy *r = &sp->lazy[i];
		if (!(r->start < b && a < r->end))
			continue;
		if (r->start < a && b < r->end) {     /* (the new piece lies past b: skipped) */
			sp->lazy[sp->nlazy++] = (struct lazy){ b, r->end, r->flags, r->latency };
			r->end = a;
		} else if (r->start < a)
			r->end = a;
		else if (b < r->end)
			r->start = b;
		else
			sp->lazy[i--] = sp->lazy[--sp->nlazy];
	}
	return 0;
}

/* The access of the region holding va now (a protect may have changed
   it since a fault), or 0 if none does (it was unmapped); sp->lock held. */
uint64_t lazy_flags(struct space *sp, uint64_t va)
{
	for (int i = 0; i < sp->nlazy; i++)
		if (va >= sp->lazy[i].start && va < sp->lazy[i].end)
			return sp->lazy[i].flags;
	return 0;
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
		if (va >= r->start && va < r->end)   /* (no PTE_U: PROT_NONE, protect.c) */
			return ((err & PF_W) && !(r->flags & PTE_W)) || ((err & PF_I) && (r->flags & PTE_NX)) ||
			       !(r->flags & PTE_U) ? 0 : r;
	}
	return 0;
}

/*
 * Map a zeroed page at va, in a lazy region of sp that allows an access
 * with page-fault error code err, now: for a fault without latency, and
 * when the kernel touches an untouched page on the user's behalf (a
 * syscall's copy, a futex's key; the region's latency is not applied
 * there: the kernel is in the middle of the call, with no thread to
 * block). Returns 1 if the page is mapped now (by us or by a racing
 * fault), 0 if va is in no such region, -ENOMEM past the space's quota
 * or the kernel's reserve.
 */
int lazy_fill(struct space *sp, uint64_t va, uint64_t err)
{
	spin_lock(&sp->lock);
	struct lazy *r = lazy_find(sp, va, err);
	uint64_t *pte = r ? space_pte(sp, PGROUNDDOWN(va)) : 0;
	/* (A PROT_NONE page there is no page to fill: its frame stays.) */
	int ret = !r ? 0 : !pte ? -ENOMEM : (*pte & PTE_P) ? 1 : (*pte & PTE_NONE) ? 0 : -ENOMEM;
	if (ret == -ENOMEM && pte && mem_user_ok(sp, 1)) {
		void *pg = page_alloc();
		if (pg) {
			*pte = pte_user(V2P(pg), r->flags);
			sp->pages++;
			ret = 1;
		}
	}
	spin_unlock(&sp->lock);
	return ret;
}

/* Give back a page lazy_fault took for a delayed fault that will not
   map it, and its charge. No spin lock held but perhaps kop_lock
   (which comes before the space lock). */
void lazy_unreserve(struct space *sp, void *pg)
{
	spin_lock(&sp->lock);
	sp->pages--;
	spin_unlock(&sp->lock);
	page_free(pg);
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
	uint64_t latency = r ? r->latency : 0;
	/* With a latency, the page is taken now (so running out of memory
	   shows at the fault) and mapped when the latency is over; its page
	   tables are made now too, charged to the space (space_pte), so the
	   arrival allocates nothing (before, its tables were made then,
	   uncounted: with memquota=16 a space touching a page per GiB used
	   48 MiB, and arrivals ignored the kernel's reserve). The page is
	   charged now as well (sp->pages), not when it arrives: charged at
	   arrival, every fault in flight passed the quota check with the
	   others uncounted, and a space keeping 1,000 faults in flight held
	   881 pages past memquota=8 (progs/tests/lazyflight.c). */
	void *pg = r && latency && mem_user_ok(sp, 1) && space_pte(sp, PGROUNDDOWN(va)) ? page_alloc() : 0;
	if (pg)
		sp->pages++;
	spin_unlock(&sp->lock);
	if (!r)
		return 0;
	struct kop *op = pg ? kop_alloc(BLK_PAGE) : 0;
	if (!op) {
		/* No latency; or no memory for the page (lazy_fill says so);
		   or the space's blocking-op quota is full: then the page comes
		   at once, rather than the space dying for it. */
		if (pg)
			lazy_unreserve(sp, pg);
		int ok = lazy_fill(sp, va, err);
		if (ok == -ENOMEM)
			space_kill(sp, "out of memory", va, tf->rip, "demand-zero page");
		return ok != 0;
	}
	op->fault_va = PGROUNDDOWN(va);
	op->result = (uint64_t)pg;       /* the page, until it is mapped */
	spin_lock(&kop_lock);
	op->wake_ns = now_ns() + latency;
	kop_wait(op, tf);
	return 1;
}
