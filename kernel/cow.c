/*
 * Copy-on-write frames (fork.c makes them). A private frame a fork left
 * in several spaces has a count of its extra holders here (0: one
 * holder, the usual case, so every path that never forks pays nothing);
 * each holder's entry has W off, and PTE_COW where its access allows
 * writing. A write fault on such an entry copies the frame, or, for the
 * last holder, gives it W back in place. Freeing a user frame
 * (frame_put) drops one holder; only the last frees it.
 *
 * Charges: every space holding a frame is charged a whole page for it
 * (sp->pages), as if it had its own copy (docs/security.md), so a copy
 * at a write fault takes a frame already paid for.
 *
 * Lock order: a break holds only the faulting space's lock while it
 * copies, shoots down, and only then drops its hold on the old frame
 * (futex waiters need no move: a private word is keyed by its address,
 * vpsys.c's futex_key): until then the other holders
 * see it shared and copy it themselves, so no holder writes a frame
 * that a stale TLB entry of another space's CPU still reads.
 */
#include "kernel.h"

#define FRAME_SHARE_MAX 0xfffe   /* extra holders of one frame (a fork past it: -EAGAIN) */

static uint16_t *extra;          /* extra holders, by frame number */
static uint64_t nframes;

void cow_init(void)
{
	uint64_t top = 0;                /* the end of usable RAM: user frames come from there */
	for (int i = 0; i < nmmap; i++)
		if (mmap_ranges[i].type == 1)
			top = MAX(top, mmap_ranges[i].base + mmap_ranges[i].len);
	nframes = MIN(top, 16UL << 30) / PGSIZE;
	extra = pages_alloc(PGROUNDUP(nframes * sizeof *extra) / PGSIZE);
	if (!extra)
		panic("cow_init: no memory for %lu frame counts", nframes);
	fshare_init(nframes);
}

static uint16_t *count(uint64_t pa)
{
	uint64_t n = pa / PGSIZE;
	if (n >= nframes)
		panic("cow: frame %#lx past the counted range", pa);
	return &extra[n];
}

/* One more holder of frame pa; 0 if it has FRAME_SHARE_MAX already. */
int frame_share(uint64_t pa)
{
	uint16_t *c = count(pa), v = __atomic_load_n(c, __ATOMIC_RELAXED);
	do {
		if (v >= FRAME_SHARE_MAX)
			return 0;
	} while (!__atomic_compare_exchange_n(c, &v, v + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return 1;
}

int frame_shared(uint64_t pa)
{
	return __atomic_load_n(count(pa), __ATOMIC_ACQUIRE) != 0;
}

/* A holder lets go of user frame pa (its PTE cleared and shot down): the
   last one frees it. */
void frame_put(uint64_t pa)
{
	if (fshare_put(pa))
		return;                  /* (a shared file page: fshare.c) */
	uint16_t *c = count(pa), v = __atomic_load_n(c, __ATOMIC_ACQUIRE);
	while (v && !__atomic_compare_exchange_n(c, &v, v - 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	if (!v)
		page_free(P2V(pa));
}

/* Drop a holder of pa without freeing it: 1 if it was the last. */
int frame_unhold(uint64_t pa)
{
	uint16_t *c = count(pa), v = __atomic_load_n(c, __ATOMIC_ACQUIRE);
	while (v && !__atomic_compare_exchange_n(c, &v, v - 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	return !v;
}

/* The entry for frame pa with access fl (protect.c): a writable access
   to a frame still shared waits for a write fault (PTE_COW). */
uint64_t cow_pte(uint64_t pa, uint64_t fl)
{
	uint64_t e = pte_user(pa, fl);
	if ((e & PTE_W) && frame_shared(pa) && !fshare_is(pa))   /* (a shared file page stays shared) */
		e = (e & ~PTE_W) | PTE_COW;
	return e;
}

/*
 * A write to va of sp found its entry read-only. Returns 1 if the write
 * can be retried (the frame is sp's own and writable now: copied, taken
 * back, or already so by a racing fault of another VP), 0 if va is no
 * copy-on-write page (a real protection fault), -ENOMEM if no frame is
 * left for the copy. While sp forks (sp->forking), a fault is retried:
 * the forking VP has made entries read-only that other CPUs may still
 * hold writable, and a copy made now could miss a write landing in the
 * old frame through one of those until the fork's shootdown. cow_break
 * below counts it in sp->breaking while it runs.
 */
static int break_frame(struct space *sp, uint64_t va)
{
	spin_lock(&sp->lock);
	uint64_t *pte = vm_walk(sp->pml4, va, 0);
	uint64_t e = pte ? *pte : 0;
	int forking = __atomic_load_n(&sp->forking, __ATOMIC_ACQUIRE);
	if (forking || !(e & PTE_P) || !(e & PTE_COW)) {
		spin_unlock(&sp->lock);
		tlb_check();             /* (a kernel copy retries with interrupts off: take the fork's flush) */
		return forking || ((e & PTE_P) && (e & PTE_W) && (e & PTE_U));
	}
	uint64_t old = e & PTE_ADDR;
	if (!frame_shared(old)) {        /* the last holder: W back, the frame stays */
		*pte = (e & ~PTE_COW) | PTE_W;
		spin_unlock(&sp->lock);
		return 1;                /* (a stale read-only entry elsewhere faults, and finds W) */
	}
	void *pg = pages_alloc_user(1);  /* charged already: sp paid a page for its hold */
	if (!pg) {
		spin_unlock(&sp->lock);
		return -ENOMEM;
	}
	memcpy(pg, P2V(old), PGSIZE);
	*pte = (e & ~(PTE_ADDR | PTE_COW)) | V2P(pg) | PTE_W;
	spin_unlock(&sp->lock);
	shake();                         /* (an ended holder's put may land here: ours frees) */
	tlb_shootdown(sp);               /* no CPU of sp reads the old frame now */
	frame_put(old);
	return 1;
}

/* Breaks in flight machine-wide: INFO_SPACES_HELD counts them as
   INFO_TREE_HELD counts its tree's, so a tree's figure never exceeds the
   machine's (avail_alone compares the two; test_treeheld checks it). */
volatile int cow_breaking;

int cow_break(struct space *sp, uint64_t va)
{
	va = PGROUNDDOWN(va);
	/* Counted before the share check, until the old frame is let go:
	   if the other holder ends meanwhile (an ended child), its put
	   leaves the frame to ours, and that space leaves INFO_TREE_HELD
	   with the frame still in use. A reader waiting on that count for
	   every ended child's frame to be back (avail_settled) waits for us
	   too (space_tree_held). Else a vCPU descheduled here let kopflood's
	   audit read one page more free after the body than before it. */
	__atomic_fetch_add(&sp->breaking, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&cow_breaking, 1, __ATOMIC_SEQ_CST);
	int r = break_frame(sp, va);
	__atomic_fetch_sub(&cow_breaking, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_sub(&sp->breaking, 1, __ATOMIC_SEQ_CST);
	return r;
}

/* A user-mode write fault on a present page: 1 if handled (retry), 0 if
   it is a real fault. A space out of memory for its copy is killed. */
int cow_fault(struct trapframe *tf, uint64_t va, uint64_t err)
{
	if ((err & (PF_P | PF_W)) != (PF_P | PF_W) || va >= USER_TOP)
		return 0;
	struct space *sp = myvp()->space;
	int r = cow_break(sp, va);
	if (r < 0)
		space_kill(sp, "out of memory", va, tf->rip, "copy-on-write page");
	return r != 0;
}
