/*
 * Demand-zero regions (SYS_map with MAP_LAZY): nothing is mapped until a
 * page is first touched; then a zeroed page appears after the region's
 * simulated latency. With a latency, the fault is a blocking operation
 * (kop.c): only the faulting thread waits if its VP takes upcalls.
 */
#include "kernel.h"
#include <anima/syscall.h>

/*
 * The regions are an array sorted by address, disjoint, grown on demand
 * from the kernel heap and charged to the space (kmalloc_user), up to
 * MAXLAZY_SPACE: every thread stack of a POSIX program is one (ulib's
 * stack.c), so the 8 fixed slots of before ran out at the eighth
 * thread. Lookups are binary searches, so a fault or a placement costs
 * O(log n) however many regions a space has. All under sp->lock.
 */

/* The index of the first region that ends after a (nlazy if none): the
   one holding a, if any, else the next one up. */
static int lazy_at(struct space *sp, uint64_t a)
{
	int lo = 0, hi = sp->nlazy;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (sp->lazy[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Make room for n more regions: 0, or -ENOMEM past MAXLAZY_SPACE or the
   space's quota, with nothing changed. Callers ask before they change
   anything, so a change never fails half done. */
long lazy_room(struct space *sp, int n)
{
	int want = sp->nlazy + n;
	if (want <= sp->lazycap)
		return 0;
	if (want > MAXLAZY_SPACE)
		return -ENOMEM;
	int cap = sp->lazycap ? sp->lazycap : 8;
	while (cap < want)
		cap *= 2;
	cap = MIN(cap, MAXLAZY_SPACE);
	struct lazy *a = kmalloc_user(sp, cap * sizeof *a);
	if (!a)
		return -ENOMEM;
	if (sp->lazy) {
		memcpy(a, sp->lazy, sp->nlazy * sizeof *a);
		kfree_user(sp, sp->lazy, sp->lazycap * sizeof *a);
	}
	sp->lazy = a;
	sp->lazycap = cap;
	return 0;
}

/* The table goes with the space's page tables (space_put). */
void lazy_free(struct space *sp)
{
	ino_regions(sp->lazy, sp->nlazy, -1);     /* (a file's region holds its inode: orphan.c) */
	if (sp->lazy)
		kfree_user(sp, sp->lazy, sp->lazycap * sizeof *sp->lazy);
	sp->lazy = 0;
	sp->nlazy = sp->lazycap = 0;
}

/* Put r at index i (lazy_room made room); keeps the order. */
static void insert(struct space *sp, int i, struct lazy r)
{
	memmove(&sp->lazy[i + 1], &sp->lazy[i], (sp->nlazy - i) * sizeof r);
	sp->lazy[i] = r;
	sp->nlazy++;
	ino_regions(&r, 1, 1);
}

/* Take out the regions [i, j). */
static void drop(struct space *sp, int i, int j)
{
	ino_regions(&sp->lazy[i], j - i, -1);
	memmove(&sp->lazy[i], &sp->lazy[j], (sp->nlazy - j) * sizeof *sp->lazy);
	sp->nlazy -= j - i;
}

/* A new region [addr, addr+len), which overlaps none (the caller made
   sure). */
long lazy_add(struct space *sp, uint64_t addr, uint64_t len, uint64_t flags, uint64_t latency)
{
	return lazy_add_r(sp, (struct lazy){ addr, addr + len, flags, MIN(latency, 10000000000UL), 0, 0, 0 });
}

/* The same for a region made whole (a file's, fmap.c). */
long lazy_add_r(struct space *sp, struct lazy n)
{
	long r = lazy_room(sp, 1);
	if (!r)
		insert(sp, lazy_at(sp, n.start), n);
	return r;
}

/* Take [a, a+len) out of sp's regions: a region inside goes, one cut at
   an end shrinks, and one with the range inside splits in two, which
   takes a slot (none left: -ENOMEM, nothing changed). Before, only
   regions wholly inside went: the rest of a partly unmapped region kept
   filling pages on a touch, and its hole could not be mapped again. */
long lazy_remove(struct space *sp, uint64_t a, uint64_t len)
{
	uint64_t b = a + len;
	int i = lazy_at(sp, a);
	if (i < sp->nlazy && sp->lazy[i].start < a && b < sp->lazy[i].end) {   /* (disjoint: the only one) */
		if (lazy_room(sp, 1))
			return -ENOMEM;
		struct lazy r = sp->lazy[i];            /* (lazy_room may have moved the table) */
		r.start = b;                            /* (a file's keeps its offset: fdelta) */
		insert(sp, i + 1, r);
		sp->lazy[i].end = a;
		return 0;
	}
	if (i < sp->nlazy && sp->lazy[i].start < a)     /* cut at its end (it ends by b) */
		sp->lazy[i++].end = a;
	int j = i;
	while (j < sp->nlazy && sp->lazy[j].end <= b)   /* wholly inside */
		j++;
	drop(sp, i, j);
	if (i < sp->nlazy && sp->lazy[i].start < b)     /* cut at its start */
		sp->lazy[i].start = b;
	return 0;
}

/* Join region i to the next if they meet with the same access and
   latency: a range reserved PROT_NONE and given access a piece at a
   time (an allocator's heap, a stack) stays one region. */
void lazy_join(struct space *sp, int i)
{
	if (i < 0 || i + 1 >= sp->nlazy)
		return;
	struct lazy *r = &sp->lazy[i], *n = r + 1;
	if (r->end == n->start && r->flags == n->flags && r->latency == n->latency &&
	    r->ino == n->ino && r->shared == n->shared && r->fdelta == n->fdelta) {
		r->end = n->end;
		drop(sp, i + 1, i + 2);
	}
}

/* Make [a, b), where no region is, demand-zero with access `flags` and
   no latency, joined to a neighbour that meets it with the same (room
   for one region made). */
void lazy_cover(struct space *sp, uint64_t a, uint64_t b, uint64_t flags)
{
	int i = lazy_at(sp, a);
	insert(sp, i, (struct lazy){ .start = a, .end = b, .flags = flags });
	lazy_join(sp, i);
	lazy_join(sp, i - 1);
}

/* The region holding va, or 0. */
struct lazy *lazy_region(struct space *sp, uint64_t va)
{
	int i = lazy_at(sp, va);
	return i < sp->nlazy && sp->lazy[i].start <= va ? &sp->lazy[i] : 0;
}

/* The access of the region holding va now (a protect may have changed
   it since a fault), or 0 if none does (it was unmapped); sp->lock held. */
uint64_t lazy_flags(struct space *sp, uint64_t va)
{
	struct lazy *r = lazy_region(sp, va);
	return r ? r->flags : 0;
}

/* The first region meeting [addr, addr+len), or 0. */
struct lazy *lazy_first(struct space *sp, uint64_t addr, uint64_t len)
{
	int i = lazy_at(sp, addr);
	return i < sp->nlazy && sp->lazy[i].start < addr + len ? &sp->lazy[i] : 0;
}

int lazy_overlaps(struct space *sp, uint64_t addr, uint64_t len)
{
	return lazy_first(sp, addr, len) != 0;
}

/* The region of sp holding va that allows an access with page-fault
   error code err, or 0; sp->lock held. */
static struct lazy *lazy_find(struct space *sp, uint64_t va, uint64_t err)
{
	struct lazy *r = lazy_region(sp, va);       /* (no PTE_U: PROT_NONE, protect.c) */
	return !r || r->ino || ((err & PF_W) && !(r->flags & PTE_W)) || ((err & PF_I) && (r->flags & PTE_NX)) ||
	       !(r->flags & PTE_U) ? 0 : r;
}

/* A zeroed page for va and, in *pte, the PTE to put it in (its tables
   made), both charged to sp; or 0, with nothing taken, past sp's quota
   or the kernel's reserve. Everything is checked before anything is
   taken: a system call refused here (-EFAULT) leaves no page table
   behind, where before each refusal left the tables it had built, and
   no quota counted them. sp->lock held. */
void *fill_take(struct space *sp, uint64_t va, uint64_t **pte)
{
	va = PGROUNDDOWN(va);
	if (!mem_user_ok(sp, space_pte_missing(sp, va) + 1))
		return 0;
	void *pg = pages_alloc_user(1);
	*pte = pg ? space_pte_room(sp, va, 1) : 0;
	if (!*pte) {
		if (pg)
			page_free(pg);
		return 0;
	}
	sp->pages++;
	return pg;
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
	space_lock_settled(sp);          /* (not between a fork's copy and its shootdown: fork.c) */
	struct lazy *f = lazy_region(sp, va);
	if (f && f->ino) {                  /* a file's page: from the cache only (fmap.c) */
		spin_unlock(&sp->lock);
		return fmap_fill(sp, va, err);
	}
	struct lazy *r = lazy_find(sp, va, err);
	uint64_t *pte = r ? vm_walk(sp->pml4, PGROUNDDOWN(va), 0) : 0;
	/* (A PROT_NONE page there is no page to fill: its frame stays.) */
	int ret = !r ? 0 : !pte ? -ENOMEM : (*pte & PTE_P) ? 1 : (*pte & PTE_NONE) ? 0 : -ENOMEM;
	void *pg = ret == -ENOMEM ? fill_take(sp, va, &pte) : 0;
	if (pg) {
		*pte = pte_user(V2P(pg), r->flags);
		ret = 1;
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
	uint64_t *pte;
	void *pg = r && latency ? fill_take(sp, va, &pte) : 0;
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
