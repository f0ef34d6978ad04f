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
#include "ext2.h"
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
	struct lazy *r = lazy_first(sp, a, len);
	if (r) {
		*next = r->end;
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

/* Pages zeroed between two sched_points: 64 KiB, a few microseconds. */
#define ZERO_CHUNK 16

static void frames_free(void *head)
{
	while (head) {
		void *next = *(void **)head;
		page_free(head);
		head = next;
	}
}

/*
 * n zeroed frames for a map of sp, each leaving the kernel's reserve,
 * chained through their first words (they are ours alone until mapped;
 * map_frames clears the word). Zeroing is most of a large map's time, so
 * it runs without locks and stops at a sched_point every ZERO_CHUNK
 * pages: other spaces' timers and preemption go on meanwhile. 0 if
 * memory ran out, or sp is being killed (*err says which); what was
 * taken is given back.
 */
static void *frames_alloc(struct space *sp, uint64_t n, long *err)
{
	void *head = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (i % ZERO_CHUNK == ZERO_CHUNK - 1) {
			sched_point();
			if (sp->state != SP_ALIVE) {
				*err = -EINTR;
				break;
			}
		}
		void *pg = pages_alloc_user(1);
		if (!pg) {
			*err = -ENOMEM;
			break;
		}
		*(void **)pg = head;
		head = pg;
		if (i + 1 == n)
			return head;
	}
	frames_free(head);
	return 0;
}

/* Is [addr, addr+len) free of pages and lazy regions? sp->lock held. */
static int range_free(struct space *sp, uint64_t addr, uint64_t len)
{
	return !vm_mapped(sp->pml4, addr, len) && !lazy_overlaps(sp, addr, len);
}

/* Map the chain fr (n = len / PGSIZE frames, charged to sp already) at
   addr, or somewhere if addr is 0. Returns the address or -errno; on
   error the frames not mapped are freed and uncharged here. */
static long map_frames(struct space *sp, uint64_t addr, uint64_t len, uint64_t flags, void *fr)
{
	space_lock_settled(sp);          /* (not inside a fork's window: fork.c) */
	long r = addr ? (range_free(sp, addr, len) ? (long)addr : -EEXIST) :
			(addr = place(sp, len)) ? (long)addr : -ENOMEM;
	/* Under the lock, so only stores: one walk per page table (the
	   PTEs of a 2 MiB-aligned run are consecutive), the frames zeroed
	   already. 256 MiB took 16 ms with a walk per page, 8.5 ms so
	   (under TCG; most of it reading each frame's chain word). */
	uint64_t va = addr, *pte = 0;
	for (; r >= 0 && va < addr + len; va += PGSIZE, pte++) {
		if (!pte || va % (512 * PGSIZE) == 0)
			pte = space_pte(sp, va);
		if (!pte) {
			r = -ENOMEM;     /* no memory for a page table */
			break;
		}
		void *pg = fr;
		fr = *(void **)pg;
		*(void **)pg = 0;
		*pte = V2P(pg) | flags | PTE_P;
	}
	if (r < 0)
		sp->pages -= (addr + len - va) / PGSIZE;   /* the frames never mapped */
	spin_unlock(&sp->lock);
	if (r < 0) {
		frames_free(fr);
		/* A sibling VP on another CPU may already have touched the
		   pages we did map: free them only after the shootdown
		   (space_unmap, which uncharges them), without the lock. */
		if (va > addr)
			space_unmap(sp, addr, va - addr);
	}
	return r;
}

/* The region n (its start, end and fdelta set here: n.fdelta comes as
   the offset of its first byte) at addr, or placed if addr is 0. */
static long map_lazy(struct space *sp, uint64_t addr, uint64_t len, struct lazy n)
{
	space_lock_settled(sp);          /* (not inside a fork's window: fork.c) */
	long r = addr ? (range_free(sp, addr, len) ? 0 : -EEXIST) : (addr = place(sp, len)) ? 0 : -ENOMEM;
	n.start = addr;
	n.end = addr + len;
	n.fdelta -= (int64_t)addr;
	if (!r)
		r = lazy_add_r(sp, n);
	spin_unlock(&sp->lock);
	return r < 0 ? r : (long)addr;
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
	if (prot & MAP_LAZY)
		return map_lazy(sp, addr, len, (struct lazy){ 0, 0, flags, MIN(d, 10000000000UL), 0, 0, 0 });
	/* Charge the pages before taking them, so that maps racing on
	   other VPs of the space cannot pass its quota together; and look
	   for the fixed range now, to refuse before zeroing (map_frames
	   looks again). */
	spin_lock(&sp->lock);
	long r = !mem_user_ok(sp, len / PGSIZE) ? -ENOMEM :
		 addr && !range_free(sp, addr, len) ? -EEXIST : 0;
	if (!r)
		sp->pages += len / PGSIZE;
	spin_unlock(&sp->lock);
	if (r < 0)
		return r;
	void *fr = frames_alloc(sp, len / PGSIZE, &r);
	if (fr)
		return map_frames(sp, addr, len, flags, fr);
	spin_lock(&sp->lock);
	sp->pages -= len / PGSIZE;
	spin_unlock(&sp->lock);
	return r;
}

/* A file's pages (inode ino from byte off; shared: written back) at
   addr or placed, with the checks of sys_map (sys_fmap, fmap.c). */
long map_file(uint64_t addr, uint64_t len, uint64_t prot, uint32_t ino, int shared, uint64_t off)
{
	struct space *sp = myvp()->space;
	uint64_t flags = PTE_U | (prot & PROT_WRITE ? PTE_W : 0) | (prot & PROT_EXEC ? 0 : PTE_NX);
	if (addr && (addr < USER_BASE || !user_range_ok(addr, len)))
		return -EINVAL;
	if (addr && touches_reserved(addr, len))
		return -EPERM;
	if (shared)
		__atomic_store_n(&sp->fshared, 1, __ATOMIC_RELEASE);   /* (before its region: fkey.c) */
	return map_lazy(sp, addr, len, (struct lazy){ 0, 0, flags, 0, ino, (uint32_t)shared, (int64_t)off });
}

long sys_unmap(uint64_t addr, uint64_t len, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	struct space *sp = myvp()->space;
	/* (len first: within 4095 of 2^64 it rounds up to 0, and a range of
	   0 bytes passed every check; inside a demand-zero region it still
	   cut the region in two, a slot each time, and returned 0) */
	if (!len || len > USER_TOP || addr % PGSIZE || addr < USER_BASE ||
	    !user_range_ok(addr, PGROUNDUP(len)))
		return -EINVAL;
	len = PGROUNDUP(len);
	if (touches_reserved(addr, len))
		return -EPERM;
	if (fmap_flush(addr, len) == -EBWAIT)
		return 0;                /* the thread blocked: the call runs again */
	spin_lock(&sp->lock);
	long r = lazy_remove(sp, addr, len);
	spin_unlock(&sp->lock);
	if (!r)
		space_unmap(sp, addr, len);
	return r;
}
