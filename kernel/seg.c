/*
 * Shared segments: memory that several spaces map at one address.
 *
 * A segment is a fixed set of frames, allocated zeroed at SYS_seg_create
 * and charged to the creator's quota (sp->segpages); later to whichever
 * space holds it when its payer lets go (segpay.c). It has its own range of the segment window [SEG_BASE, SEG_TOP)
 * for its whole life, never reused, so a pointer into it means the same
 * in every space that maps it: sync objects, queues, thread-package data.
 *
 * Authority is a handle (a CAP_SEG entry of the holder's table) with
 * rights SEG_READ/WRITE/GRANT/REVOKE; SYS_cap_grant and SYS_spawn pass
 * it on only with SEG_GRANT, and only narrowed. Each handle and each
 * mapping holds a reference (nhandles, nmaps under seg_lock):
 *  - the frames are freed when no mapping is left and either no handle is
 *    left or the segment was revoked: after every space that mapped it
 *    has cleared its PTEs and shot down its TLBs (seg_unmap_in), or freed
 *    its tables with no CPU running it (space_put);
 *  - the struct is freed when no handle and no mapping is left.
 *
 * Futexes on a segment word are keyed by (segment id, offset): the same
 * key from every space, and no stale key once the frames are reused.
 * Unmapping wakes the unmapping space's waiters on the segment with
 * -EIDRM; revoking wakes every waiter on it with -EIDRM. Waiters parked
 * at user level (segwake.c) get an EV_WAKE(0) and find out themselves.
 *
 * Lock order: table_lock, space lock, seg_lock; kop_lock before all.
 */
#include "kernel.h"

_Static_assert(SEG_TOP <= USER_MAP_BASE && SEG_BASE >= USER_BASE, "the segment window lies below SYS_map's placement");

static struct spinlock seg_lock = SPINLOCK_INIT("seg");
static uint64_t seg_next = SEG_BASE;     /* seg_lock: the next free window address */
static int seg_ids = 1;                  /* seg_lock */
/* Segment ids are never reused (futex keys and capabilities name them)
   and fill bits 32..62 of a key: the window, never reused either, runs
   out first, each segment taking at least two pages of it. */
_Static_assert((SEG_TOP - SEG_BASE) / (2 * PGSIZE) < (1UL << 31), "segment ids cannot wrap");

/* The futex key of offset off in s: never a physical address (bit 63). */
uint64_t seg_key(struct seg *s, uint64_t off)
{
	return SEGKEY_TAG | ((uint64_t)s->id << 32) | off;
}

int in_seg_window(uint64_t addr, uint64_t len)
{
	return addr < SEG_TOP && addr + len > SEG_BASE;
}

/* Free a segment's frames fr (no mapping is left, and no CPU can reach
   them). By value: the struct may be freed meanwhile. */
static void free_frames(uint64_t *fr, int npages, int fpages, int creator, uint64_t payer)
{
	for (int i = 0; i < npages; i++)
		page_free(P2V(fr[i]));
	pages_free(fr, fpages);
	/* Give the creator its quota back, if it still exists: the frames,
	   and the struct (charged while the frames are: it may outlive them
	   only as long as a handle does, and handles are bounded). */
	spin_lock(&table_lock);
	struct space *c = seg_payer(creator, payer);
	if (c) {
		__atomic_sub_fetch(&c->segpages, npages + fpages, __ATOMIC_ACQ_REL);
		__atomic_sub_fetch(&c->kbytes, kheap_charge(sizeof(struct seg)), __ATOMIC_RELAXED);
		__atomic_sub_fetch(&c->nsegs, 1, __ATOMIC_ACQ_REL);
	}
	spin_unlock(&table_lock);
}

/* Drop a reference (handle: 1, mapping: 0); frees what is no longer needed.
   No lock held. */
void seg_release(struct seg *s, int handle)
{
	/* Its holder let go (or a call's copy goes): pay where it is held
	   (segpay.c). Before the drop: our reference keeps s alive. */
	if (READ_ONCE(s->frames))
		seg_settle(s);
	spin_lock(&seg_lock);
	if (handle)
		s->nhandles--;
	else
		s->nmaps--;
	uint64_t *fr = 0;
	if (s->frames && !s->nmaps && (!s->nhandles || s->revoked)) {
		fr = s->frames;          /* ours to free: nobody else sees them now */
		s->frames = 0;
	}
	int gone = !s->nmaps && !s->nhandles;
	int np = s->npages, fp = s->fpages, cr = s->creator;
	uint64_t pay = s->payer;
	spin_unlock(&seg_lock);
	if (fr)
		free_frames(fr, np, fp, cr, pay);
	if (gone)
		kfree(s);
}

/* A fork: `to` maps every segment `from` maps that is not being revoked
   (from's lock held; `to` not running yet: the caller copies the
   entries). Each mapping holds its reference, as seg_map's. */
void seg_fork(struct space *from, struct space *to)
{
	spin_lock(&seg_lock);
	for (int i = 0; i < MAXSEG_SPACE; i++) {
		struct seg *s = from->segmaps[i].seg;
		if (s && !s->revoked && s->frames) {
			s->nmaps++;
			to->segmaps[i] = from->segmaps[i];
		}
	}
	spin_unlock(&seg_lock);
}

/* A new handle reference to s (the caller holds one, so s is alive). */
void seg_hold(struct seg *s)
{
	spin_lock(&seg_lock);
	s->nhandles++;
	spin_unlock(&seg_lock);
}

/* SYS_seg_create(len) -> a handle with SEG_ALL rights. */
long sys_seg_create(uint64_t len, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	struct space *sp = myvp()->space;
	if (!len || len > SEG_MAXLEN)
		return -EINVAL;
	int npages = PGROUNDUP(len) / PGSIZE;
	int fpages = PGROUNDUP(npages * sizeof(uint64_t)) / PGSIZE;
	if (__atomic_add_fetch(&sp->nsegs, 1, __ATOMIC_ACQ_REL) > MAXSEG_SPACE) {
		__atomic_sub_fetch(&sp->nsegs, 1, __ATOMIC_ACQ_REL);
		return -EAGAIN;
	}
	spin_lock(&sp->lock);
	int ok = mem_user_ok(sp, npages + fpages);
	if (ok)
		__atomic_add_fetch(&sp->segpages, npages + fpages, __ATOMIC_ACQ_REL);
	spin_unlock(&sp->lock);
	struct seg *s = ok ? kzalloc_user(sp, sizeof *s) : 0;
	uint64_t *fr = s ? pages_alloc_user(fpages) : 0;
	int n = 0;
	for (; fr && n < npages; n++) {
		/* 64 MiB of zeroing: let the CPU catch up as we go (no lock
		   held), and stop if we are being killed meanwhile. */
		if (n % 16 == 15) {
			sched_point();
			if (sp->state != SP_ALIVE)
				break;
		}
		void *pg = pages_alloc_user(1);
		if (!pg)
			break;
		fr[n] = V2P(pg);
	}
	uint64_t base = 0;
	if (fr && n == npages) {
		spin_lock(&seg_lock);
		if (seg_next + PGROUNDUP(len) + PGSIZE <= SEG_TOP) {
			base = seg_next;
			seg_next += PGROUNDUP(len) + PGSIZE;     /* a guard page after it */
			s->id = seg_ids++;
		}
		spin_unlock(&seg_lock);
	}
	long r = -ENOMEM;
	if (base) {
		s->creator = sp->id;
		s->payer = sp->serial;
		s->base = base;
		s->len = PGROUNDUP(len);
		s->frames = fr;
		s->npages = npages;
		s->fpages = fpages;
		s->nhandles = 1;
		struct capent ce = { .kind = CAP_SEG, .seg = s, .rights = SEG_ALL };
		spin_lock(&sp->lock);
		r = cap_put(sp, &ce);
		spin_unlock(&sp->lock);
		if (r >= 0)
			return r;
		seg_release(s, 1);               /* the table is full: frees it all */
		return r;
	}
	while (n > 0)
		page_free(P2V(fr[--n]));
	if (fr)
		pages_free(fr, fpages);
	if (s)
		kfree_user(sp, s, sizeof *s);
	if (ok)
		__atomic_sub_fetch(&sp->segpages, npages + fpages, __ATOMIC_ACQ_REL);
	__atomic_sub_fetch(&sp->nsegs, 1, __ATOMIC_ACQ_REL);
	return r;
}

/* The segment behind handle h of the caller, with a handle reference the
   caller must release: -EBADF (not a handle, or not a segment's),
   -EIDRM (revoked). */
static long seg_get(uint64_t h, struct capent *ce)
{
	long r = cap_get(myvp()->space, h, ce);
	if (r < 0)
		return r;
	if (ce->kind != CAP_SEG) {
		cap_release(ce);
		return -EBADF;
	}
	if (__atomic_load_n(&ce->seg->revoked, __ATOMIC_ACQUIRE)) {
		cap_release(ce);
		return -EIDRM;
	}
	return 0;
}

/* SYS_seg_map(handle, addr or 0, prot) -> the segment's address. */
long sys_seg_map(uint64_t h, uint64_t addr, uint64_t prot, uint64_t d, uint64_t e, uint64_t f)
{
	(void)d, (void)e, (void)f;
	struct space *sp = myvp()->space;
	struct capent ce;
	if (!(prot & PROT_READ) || (prot & ~(uint64_t)(PROT_READ | PROT_WRITE)))
		return -EINVAL;          /* data only: no exec, and x86 has no write-only */
	long r = seg_get(h, &ce);
	if (r < 0)
		return r;
	struct seg *s = ce.seg;
	int need = SEG_READ | (prot & PROT_WRITE ? SEG_WRITE : 0);
	if ((ce.rights & need) != need)
		r = -EACCES;             /* the grant does not allow it */
	else if (addr && addr != s->base)
		r = -EINVAL;             /* a segment lives at one address only */
	if (r < 0) {
		cap_release(&ce);
		return r;
	}
	uint64_t flags = PTE_P | PTE_U | PTE_NX | PTE_SHARED | (prot & PROT_WRITE ? PTE_W : 0);
	spin_lock(&sp->lock);
	int slot = -1;
	for (int i = 0; i < MAXSEG_SPACE; i++) {
		if (sp->segmaps[i].seg == s)
			r = -EEXIST;
		if (!sp->segmaps[i].seg && slot < 0)
			slot = i;
	}
	if (!r && slot < 0)
		r = -ENOMEM;             /* MAXSEG_SPACE mapped already */
	/* its page tables count in the mapper's quota */
	if (!r && !mem_user_ok(sp, s->npages / 512 + 3))
		r = -ENOMEM;
	if (!r) {
		spin_lock(&seg_lock);    /* revoke sets `revoked`, then looks at each space */
		if (s->revoked)
			r = -EIDRM;
		else
			s->nmaps++;
		spin_unlock(&seg_lock);
	}
	if (r < 0) {
		spin_unlock(&sp->lock);
		cap_release(&ce);
		return r;
	}
	sp->segmaps[slot].seg = s;
	sp->segmaps[slot].prot = (int)prot;
	int i = 0;
	for (; i < s->npages; i++) {
		uint64_t *pte = space_pte(sp, s->base + (uint64_t)i * PGSIZE);
		if (!pte)
			break;
		*pte = s->frames[i] | flags;
	}
	spin_unlock(&sp->lock);
	cap_release(&ce);
	if (i < s->npages) {             /* out of memory for page tables: undo */
		seg_unmap_in(sp, s);
		return -ENOMEM;
	}
	return (long)s->base;
}

/* Unmap s from sp if sp maps it: clear the PTEs, shoot down, wake sp's
   futex waiters on s with -EIDRM, drop the mapping's reference. 1 if it
   was mapped. No lock held; sp's tables alive (a reference held). */
int seg_unmap_in(struct space *sp, struct seg *s)
{
	spin_lock(&sp->lock);
	int found = 0;
	for (int i = 0; i < MAXSEG_SPACE; i++)
		if (sp->segmaps[i].seg == s) {
			sp->segmaps[i].seg = 0;
			found = 1;
		}
	if (found) {
		uint64_t va = s->base;
		struct frame_batch b = { .n = 0 };
		while (!vm_unmap_collect(sp->pml4, &va, s->base + s->len, &b))
			b.n = 0;         /* (shared PTEs collect no frames) */
	}
	spin_unlock(&sp->lock);
	shake();                         /* unmapped, its futex waiters still queued */
	if (!found)
		return 0;
	tlb_shootdown(sp);
	space_prune(sp, s->base, s->base + s->len);   /* (segments at ever new bases: tlb.c) */
	futex_cancel_seg(s->id, sp, -EIDRM);
	seg_wake_all(sp);                /* and its waiters parked at user level */
	seg_release(s, 0);
	return 1;
}

/* A segment sp maps that overlaps [a, end), or 0; sp->lock held. */
struct segmap *segmap_in(struct space *sp, uint64_t a, uint64_t end)
{
	for (int i = 0; i < MAXSEG_SPACE; i++) {
		struct seg *s = sp->segmaps[i].seg;
		if (s && a < s->base + s->len && s->base < end)
			return &sp->segmaps[i];
	}
	return 0;
}

/* The segment sp maps at address a (inside it), or 0; sp->lock held. */
struct segmap *segmap_at(struct space *sp, uint64_t a)
{
	return segmap_in(sp, a, a + 1);
}

/* SYS_seg_unmap(addr): addr is the segment's base. */
long sys_seg_unmap(uint64_t addr, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	struct space *sp = myvp()->space;
	spin_lock(&sp->lock);
	struct segmap *m = segmap_at(sp, addr);
	struct seg *s = m && m->seg->base == addr ? m->seg : 0;
	spin_unlock(&sp->lock);
	/* A racing unmap of the same segment finds nothing: seg_unmap_in
	   rechecks under the lock, and s lives while our mapping does. */
	if (!s || !seg_unmap_in(sp, s))
		return -EINVAL;
	return 0;
}

/* SYS_seg_revoke(handle): unmap the segment from every space (each space
   shoots down its own TLBs), wake every futex waiter on it with -EIDRM;
   its handles now give -EIDRM. Needs SEG_REVOKE. */
long sys_seg_revoke(uint64_t h, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	struct capent ce;
	long r = seg_get(h, &ce);
	if (r < 0)
		return r;
	struct seg *s = ce.seg;
	if (!(ce.rights & SEG_REVOKE)) {
		cap_release(&ce);
		return -EACCES;
	}
	struct space **all = kmalloc(MAXSPACE * sizeof *all);
	if (!all) {
		cap_release(&ce);
		return -ENOMEM;
	}
	spin_lock(&seg_lock);
	r = s->revoked ? -EIDRM : 0;
	s->revoked = 1;
	spin_unlock(&seg_lock);
	shake();                         /* revoked, still mapped everywhere */
	if (!r) {
		/* Every space whose tables are alive. A space already tearing
		   its tables down drops its mapping in space_put; a space that
		   maps s after this point cannot (seg_map checks `revoked`
		   under its space lock, which seg_unmap_in takes). */
		int n = space_hold_all(all, MAXSPACE);
		for (int i = 0; i < n; i++) {
			seg_unmap_in(all[i], s);     /* (its futex waiters on s too) */
			space_put(all[i]);
		}
	}
	kfree(all);
	cap_release(&ce);
	return r;
}

/* SYS_seg_info(handle, uint64_t out[2]) -> address; out = {len, rights}. */
long sys_seg_info(uint64_t h, uint64_t out, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	struct capent ce;
	long r = seg_get(h, &ce);
	if (r < 0)
		return r;
	uint64_t o[2] = { ce.seg->len, (uint64_t)ce.rights };
	r = out && copyout(out, o, sizeof o) < 0 ? -EFAULT : (long)ce.seg->base;
	cap_release(&ce);
	return r;
}

/* SYS_seg_robust(list, n): the caller's robust list, n words in its own
   memory, each 0 or the address of an XM_* lock word in a segment. Read
   only when the space ends (seg_space_died); until then it is the
   space's own business. */
long sys_seg_robust(uint64_t list, uint64_t n, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	struct space *sp = myvp()->space;
	if (n > MAXROBUST || list % 8)
		return -EINVAL;
	if (n && !user_range_ok(list, n * 8))
		return -EFAULT;
	spin_lock(&sp->lock);
	sp->robust = n ? list : 0;
	sp->nrobust = (int)n;
	spin_unlock(&sp->lock);
	return 0;
}

/* Read a word of sp's memory through its tables (sp is not running). */
static int peek(struct space *sp, uint64_t va, uint64_t *out)
{
	uint64_t *pte = vm_walk(sp->pml4, va, 0);
	if (!pte || !(*pte & PTE_P) || !(*pte & PTE_U))
		return -EFAULT;
	*out = *(uint64_t *)((uint8_t *)P2V(*pte & PTE_ADDR) + va % PGSIZE);
	return 0;
}

/*
 * sp has ended (no VP of it runs): every lock word its robust list names
 * that sp still owns becomes XM_DEAD (keeping XM_WAITERS), and every
 * futex waiter on it is woken, so one of them takes the lock and learns
 * EOWNERDEAD. The list is sp's own memory: each entry is checked (aligned,
 * inside a segment sp maps with write access) and only the word is
 * touched, with a compare-and-swap on the owner field.
 */
void seg_space_died(struct space *sp)
{
	uint64_t keys[MAXROBUST];
	int nk = 0;
	spin_lock(&sp->lock);
	for (int i = 0; i < sp->nrobust; i++) {
		uint64_t a;
		if (peek(sp, sp->robust + (uint64_t)i * 8, &a) < 0 || !a || a % 4)
			continue;
		struct segmap *m = segmap_at(sp, a);
		if (!m || !(m->prot & PROT_WRITE))
			continue;
		struct seg *s = m->seg;      /* its frames live: our mapping holds them */
		uint64_t off = a - s->base;
		volatile uint32_t *w = (uint32_t *)((uint8_t *)P2V(s->frames[off / PGSIZE]) + off % PGSIZE);
		uint32_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
		while ((v & XM_OWNER) == (uint32_t)sp->id && !(v & XM_DEAD))
			if (__atomic_compare_exchange_n(w, &v, XM_DEAD | (v & XM_WAITERS), 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				keys[nk++] = seg_key(s, off);
				break;
			}
	}
	spin_unlock(&sp->lock);
	for (int i = 0; i < nk; i++)
		futex_wake_key(keys[i], 0x7fffffff, 0);   /* segment keys */
}

/* sp's tables are being freed (no CPU runs it): drop its mappings' and
   its segment handles' references. Each entry is cleared under sp's
   lock, so seg_settle, which reads other spaces' entries under their
   locks, never meets a segment whose reference is gone; each release
   moves the charge on if sp paid (segpay.c). */
void seg_space_free(struct space *sp)
{
	for (int i = 0; i < MAXSEG_SPACE + MAXCAP_SPACE; i++) {
		spin_lock(&sp->lock);
		struct seg *s = 0;
		int handle = i >= MAXSEG_SPACE;
		if (!handle && sp->segmaps[i].seg) {
			s = sp->segmaps[i].seg;
			sp->segmaps[i].seg = 0;
		} else if (handle && sp->caps[i - MAXSEG_SPACE].kind == CAP_SEG) {
			s = sp->caps[i - MAXSEG_SPACE].seg;
			sp->caps[i - MAXSEG_SPACE].kind = CAP_FREE;
		}
		spin_unlock(&sp->lock);
		if (s)
			seg_release(s, handle);
	}
}

/* Charge s to `to` from now on, instead of its payer `from` (0: no
   longer in the table): frames, struct and count move (segpay.c says
   when). Nothing if its frames are being freed: their refund goes to the
   payer. table_lock held; to->lock not held. */
void seg_charge_to(struct seg *s, struct space *from, struct space *to)
{
	spin_lock(&seg_lock);
	if (s->frames) {
		s->creator = to->id;
		s->payer = to->serial;
		int n = s->npages + s->fpages;
		uint64_t kb = kheap_charge(sizeof *s);
		if (from) {
			__atomic_sub_fetch(&from->segpages, n, __ATOMIC_ACQ_REL);
			__atomic_sub_fetch(&from->kbytes, kb, __ATOMIC_RELAXED);
			__atomic_sub_fetch(&from->nsegs, 1, __ATOMIC_ACQ_REL);
		}
		__atomic_add_fetch(&to->segpages, n, __ATOMIC_ACQ_REL);
		__atomic_add_fetch(&to->kbytes, kb, __ATOMIC_RELAXED);
		__atomic_add_fetch(&to->nsegs, 1, __ATOMIC_ACQ_REL);
	}
	spin_unlock(&seg_lock);
}

/* The futex key of user address a in a segment the caller maps: 0, or
   -EFAULT if it maps none there. */
int seg_futex_key(struct space *sp, uint64_t a, uint64_t *key)
{
	spin_lock(&sp->lock);
	struct segmap *m = segmap_at(sp, a);
	if (m)
		*key = seg_key(m->seg, a - m->seg->base);
	spin_unlock(&sp->lock);
	return m ? 0 : -EFAULT;
}

/* For a fault message: what the segment window holds at a for sp. */
void seg_fault_detail(struct space *sp, uint64_t a, char *buf, size_t n)
{
	spin_lock(&sp->lock);
	struct segmap *m = segmap_at(sp, a);
	if (!m)
		ksnprintf(buf, n, "no segment mapped here");
	else
		ksnprintf(buf, n, "segment %d mapped %s", m->seg->id,
			  m->prot & PROT_WRITE ? "read-write" : "read-only");
	spin_unlock(&sp->lock);
}

/* The id of the segment sp maps at a, or 0. */
int seg_id_at(struct space *sp, uint64_t a)
{
	spin_lock(&sp->lock);
	struct segmap *m = segmap_at(sp, a);
	int id = m ? m->seg->id : 0;
	spin_unlock(&sp->lock);
	return id;
}

/* Does sp map segment `id`? sp->lock held. */
int seg_mapped(struct space *sp, int id)
{
	for (int i = 0; i < MAXSEG_SPACE; i++)
		if (sp->segmaps[i].seg && sp->segmaps[i].seg->id == id)
			return 1;
	return 0;
}
