/*
 * Isolated views: a VP's private window on 2 MiB-aligned ranges of its
 * own space, after DTHREADS (twin/diff commit), for threadpkgs/det.
 *
 * A VP in a view runs on its own top table: a copy of its space's, in
 * which the paths to the view's ranges are private tables (a PDPT per
 * 512 GiB, a PD per GiB, a PT per 2 MiB). Every other entry of those
 * private tables is the space's own (the same lower tables), copied when
 * the view is built and again, lazily, when a fault finds the space grew
 * an entry the copy lacks (view_sync). A space table an unmap leaves
 * empty is freed (vm.c, vm_prune) only once its entry is gone from every
 * view too (view_unlink: a view's copies change under sp->lock, and the
 * vp->view of a VP in sp->vps is set and cleared under it) and after the
 * shootdown, so a copied entry never names a freed table.
 *
 * In a range, the private PT starts empty and is filled on faults from
 * the space's entry: a read maps the space's frame read-only, holding a
 * reference on it (frame_share: the frame cannot be freed while the view
 * maps it, whatever the space does to its own entry: unmap, fork, a
 * copy-on-write break); the first write makes a private copy of the
 * space's current page and a twin of it. SYS_view_commit writes, for
 * each private page, the bytes that differ from its twin into the
 * space's frame of the moment (so commits of disjoint bytes merge, and on
 * one byte the last commit wins), then drops every private page and hold:
 * the view sees the space afresh. A page the space no longer maps
 * writable at the commit is dropped uncommitted (a copy-on-write page is
 * broken first).
 *
 * Only the owning VP touches its view, and its tables are loaded only
 * while it runs (sched.c: view_load, view_unload): so an entry the VP
 * drops needs only this CPU's flush (invlpg), every other CPU having
 * loaded other tables since, and the view is freed with the VP (vp_free)
 * when no CPU can walk it. The space's own entries change under
 * tlb_shootdown(sp), which reaches a CPU running a view (its cr3_space
 * is the space).
 *
 * Charges (to the space, before anything is built): every table of the
 * view, one page per read hold (the space may unmap the frame, and the
 * view then keeps it alive), two per private page (the copy and its
 * twin). A space past its quota gets -ENOMEM from SYS_view_enter; a
 * fault that cannot be charged kills the space with a message; nothing
 * of the view is lost by either. Segment, shared-file and VP pages are
 * never in a view: SYS_view_enter refuses a range holding one (-EBUSY),
 * and a fault that meets one mapped there later kills the space.
 */
#include "kernel.h"
#include <anima/view.h>

#define MAXCHUNK (VIEW_MAXLEN / VIEW_ALIGN)
#define MAXUP (4 * VIEW_MAXRANGES)   /* a range crosses at most one GiB and one 512 GiB line */
#define PTE_UP (PTE_P | PTE_W | PTE_U)

struct view {
	uint64_t *root;                  /* private top table */
	int nr;
	struct { uint64_t start, end; int chunk0; } r[VIEW_MAXRANGES];
	int nup;                         /* private PDPTs (level 2) and PDs (level 1) */
	struct { uint64_t base; int level; uint64_t *t; } up[MAXUP];
	int nchunk;                      /* private PTs, with each page's twin (phys, 0: none) */
	struct { uint64_t base, *pt, *twin; int used; } ch[MAXCHUNK];
	uint64_t len, pages;             /* ranges' bytes; pages charged */
};

static int idx(uint64_t va, int level)
{
	return (va >> (12 + 9 * level)) & 511;
}

/* The first address a level-`level` table covers. */
static uint64_t base(uint64_t va, int level)
{
	return va & ~((1UL << (12 + 9 * (level + 1))) - 1);
}

/* Charged first, then checked: a write fault charges without sp->lock
   (view_fault's spare pages), and a check before the add would let two
   CPUs pass on the same last pages of the quota. */
static int charge(struct space *sp, struct view *v, uint64_t n)
{
	__atomic_add_fetch(&sp->viewpages, n, __ATOMIC_RELAXED);
	if (!mem_user_fits(sp, n)) {
		__atomic_sub_fetch(&sp->viewpages, n, __ATOMIC_RELAXED);
		return 0;
	}
	v->pages += n;
	return 1;
}

static void uncharge(struct space *sp, struct view *v, uint64_t n)
{
	__atomic_sub_fetch(&sp->viewpages, n, __ATOMIC_RELAXED);
	v->pages -= n;
}

static uint64_t *up_find(struct view *v, int level, uint64_t va)
{
	for (int i = 0; i < v->nup; i++)
		if (v->up[i].level == level && v->up[i].base == base(va, level))
			return v->up[i].t;
	return 0;
}

/* va's 2 MiB chunk if it is in a range, else 0. */
static int chunk_of(struct view *v, uint64_t va)
{
	for (int i = 0; i < v->nr; i++)
		if (va >= v->r[i].start && va < v->r[i].end)
			return v->r[i].chunk0 + (int)((va - v->r[i].start) / VIEW_ALIGN) + 1;
	return 0;
}

/* The space's entry e, in its level-`level` table over va, is going with
   the table it names (vm_prune): no view of sp keeps a copy of it (a
   fault copies the next one in: view_sync). sp->lock held. */
void view_unlink(struct space *sp, uint64_t va, int level, uint64_t e)
{
	for (struct vp *p = sp->vps; p; p = p->space_next) {
		struct view *v = p->view;
		uint64_t *t = !v ? 0 : level == 3 ? v->root : up_find(v, level, va);
		if (t && (t[idx(va, level)] & PTE_ADDR) == (e & PTE_ADDR))
			t[idx(va, level)] = 0;
	}
}

/* ---- Faults ---- */

/* va outside the ranges: copy the space entry a private table lacks (the
   space grew a table since). 1 if one was copied. sp->lock held. */
static int view_sync(struct space *sp, struct view *v, uint64_t va)
{
	uint64_t *vt = v->root, *st = sp->pml4;
	for (int level = 3; level > 0; level--) {
		int i = idx(va, level);
		uint64_t *next = level > 1 ? up_find(v, level - 1, va) : 0;
		if (!next) {
			if ((st[i] & PTE_P) && !(vt[i] & PTE_P)) {
				vt[i] = st[i];
				return 1;
			}
			return 0;
		}
		if (!(st[i] & PTE_P))
			return 0;
		vt = next;
		st = P2V(st[i] & PTE_ADDR);
	}
	return 0;
}

/*
 * The two pages a write fault's private copy needs (the copy, its twin),
 * charged and allocated before sp->lock is taken: the other CPUs' view
 * faults and commits wait on that lock, and allocation is the slow part.
 * `n` pages are charged: 2, or 1 over a read hold, whose charge passes to
 * the copy. Unzeroed: make_private overwrites every byte.
 */
struct spare {
	void *pg, *tw;
	int n;
};

static void spare_get(struct space *sp, struct view *v, uint64_t e, struct spare *k)
{
	k->n = e & PTE_P ? 1 : 2;
	if (!charge(sp, v, k->n)) {
		k->n = 0;
		return;
	}
	k->pg = page_alloc_user_raw();
	k->tw = k->pg ? page_alloc_user_raw() : 0;
}

/* What make_private did not take back: freed, uncharged. */
static void spare_put(struct space *sp, struct view *v, struct spare *k)
{
	if (k->pg)
		page_free(k->pg);
	if (k->tw)
		page_free(k->tw);
	if (k->n)
		uncharge(sp, v, k->n);
}

/* A private copy of the space's page (entry s) with its twin, in place
   of what *pte held (nothing, or a read hold), from the spare pages.
   sp->lock held. */
static int make_private(struct view *v, int c, uint64_t va, uint64_t s,
			struct spare *k)
{
	uint64_t *pte = &v->ch[c].pt[idx(va, 0)], old = *pte;
	if (!k->pg || !k->tw || k->n != (old ? 1 : 2))
		return -ENOMEM;
	void *pg = k->pg, *tw = k->tw;
	k->pg = k->tw = 0;
	k->n = 0;
	memcpy(pg, P2V(s & PTE_ADDR), PGSIZE);
	memcpy(tw, pg, PGSIZE);
	*pte = V2P(pg) | PTE_P | PTE_U | PTE_W | (s & PTE_NX);
	v->ch[c].twin[idx(va, 0)] = V2P(tw);
	vstat(VS_VFAULT_PRIV, 1);
	if (old) {
		invlpg(va);
		vstat(VS_INVLPG, 1);
		frame_put(old & PTE_ADDR);      /* our hold: the space's entry keeps the frame */
	} else
		v->ch[c].used++;
	return 1;
}

/* A read hold on the space's frame, mapped read-only. sp->lock held. */
static int hold(struct space *sp, struct view *v, int c, uint64_t va, uint64_t s)
{
	if (!charge(sp, v, 1))
		return -ENOMEM;
	if (!frame_share(s & PTE_ADDR)) {
		uncharge(sp, v, 1);
		return -ENOMEM;
	}
	v->ch[c].pt[idx(va, 0)] = (s & PTE_ADDR) | PTE_P | PTE_U | (s & PTE_NX);
	v->ch[c].used++;
	vstat(VS_VFAULT_HOLD, 1);
	return 1;
}

/*
 * A page fault at user address va of a VP in a view (err: the CPU's
 * code). 1: retry; 0: not the view's to handle (the space's own fault
 * paths run: a demand-zero fill, a real fault); -ENOMEM: no charge for
 * the page; -EPERM: a page that may never be in a view.
 */
static int fault(struct view *v, uint64_t va, uint64_t err, struct spare *k);

int view_fault(uint64_t va, uint64_t err)
{
	struct view *v = myvp()->view;
	if (!v || va >= USER_TOP)
		return 0;
	uint64_t t0 = rdtsc();
	struct space *sp = myvp()->space;
	struct spare k = { 0, 0, 0 };
	va = PGROUNDDOWN(va);
	/* (v's private tables change only here, in its own VP: no lock to read them) */
	int c = chunk_of(v, va);
	uint64_t e = c ? v->ch[c - 1].pt[idx(va, 0)] : 0;
	if (c && (err & PF_W) && !(e & PTE_W))
		spare_get(sp, v, e, &k);
	int r = fault(v, va, err, &k);
	spare_put(sp, v, &k);
	vstat(VS_VFAULT_TSC, rdtsc() - t0);
	return r;
}

static int fault(struct view *v, uint64_t va, uint64_t err, struct spare *k)
{
	struct space *sp = myvp()->space;
	spin_lock(&sp->lock);
	int c = chunk_of(v, va), r = 0;
	if (!c) {
		r = view_sync(sp, v, va);
		vstat(VS_VFAULT_SYNC, r);
		spin_unlock(&sp->lock);
		return r;
	}
	c--;
	uint64_t *sp_pte = vm_walk(sp->pml4, va, 0);
	uint64_t s = sp_pte ? *sp_pte : 0, e = v->ch[c].pt[idx(va, 0)];
	int wr = (err & PF_W) && (s & (PTE_W | PTE_COW));
	if (!(s & PTE_P))
		r = 0;                   /* the space's page is not there: its fault paths */
	else if (s & (PTE_SHARED | PTE_KERNEL))
		r = -EPERM;
	else if (!(e & PTE_P))
		r = wr ? make_private(v, c, va, s, k) : hold(sp, v, c, va, s);
	else if (wr && !(e & PTE_W))
		r = make_private(v, c, va, s, k);
	else
		r = !(err & PF_P);       /* raced in: retry; else a real protection fault */
	spin_unlock(&sp->lock);
	return r;
}

/* trap(): a user-mode fault. 1 if handled; the space dies if the view
   could not take the page. */
int view_user_fault(struct trapframe *tf, uint64_t va, uint64_t err)
{
	int r = view_fault(va, err);
	if (r == -ENOMEM)
		space_kill(myvp()->space, "out of memory", va, tf->rip, "isolated view (copy and twin)");
	else if (r == -EPERM)
		space_kill(myvp()->space, "bad view", va, tf->rip, "a shared page in an isolated view");
	return r != 0;
}

/* ---- Commit and refresh ---- */

/* 0xff in each byte of d that is not 0, else 0x00. */
static uint64_t bytes_of(uint64_t d)
{
	d |= d >> 4;
	d |= d >> 2;
	d |= d >> 1;
	return (d & 0x0101010101010101UL) * 0xff;
}

/* Write the bytes of word p that differ from its twin t into *dst, and
   only those (another VP may store to the others meanwhile: one
   compare-and-swap, not a read and a write of the word). Returns the
   bytes of them that had changed in *dst since the twin too (a race). */
static int merge(uint64_t *dst, uint64_t p, uint64_t t)
{
	uint64_t old = t;
	/* the common case: *dst is still the twin's word, so the merged word is p */
	if (__atomic_compare_exchange_n(dst, &old, p, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return 0;
	uint64_t m = bytes_of(p ^ t);
	while (!__atomic_compare_exchange_n(dst, &old, (old & ~m) | (p & m), 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	uint64_t ones = bytes_of(old ^ t) & m & 0x0101010101010101UL;
	return (int)((ones * 0x0101010101010101UL) >> 56);     /* (their sum: no popcnt here) */
}

/* Write the bytes of pg that differ from its twin tw into the space's
   page at va, a word at a time (a byte at a time took twice the
   instructions). 1: some were; 0: none changed, or the space no longer
   maps the page writable (dropped); -ENOMEM: a copy-on-write break found
   no frame. */
static int commit_page(struct space *sp, uint64_t va, const uint8_t *pg, const uint8_t *tw)
{
	for (;;) {
		int changed = 0;
		spin_lock(&sp->lock);
		uint64_t *p = vm_walk(sp->pml4, va, 0);
		uint64_t s = p ? *p : 0;
		if ((s & PTE_P) && (s & PTE_W) && !(s & (PTE_SHARED | PTE_KERNEL))) {
			uint64_t *dst = P2V(s & PTE_ADDR);
			const uint64_t *pw = (const uint64_t *)pg, *tww = (const uint64_t *)tw;
			uint64_t races = 0;
			for (int w = 0; w < (int)(PGSIZE / 8); w++)
				if (pw[w] != tww[w]) {
					races += merge(&dst[w], pw[w], tww[w]);
					changed = 1;
				}
			if (races)
				__atomic_add_fetch(&sp->viewraces, races, __ATOMIC_RELAXED);
			spin_unlock(&sp->lock);
			return changed;
		}
		spin_unlock(&sp->lock);
		if (!(s & PTE_P) || !(s & PTE_COW))
			return 0;
		int r = cow_break(sp, va);
		if (r <= 0)
			return r < 0 ? -ENOMEM : 0;
	}
}

/* Drop every private page (committing it first if asked) and every hold.
   Returns the pages committed (with a byte changed), or without commit
   the private pages dropped; -ENOMEM if a commit
   stopped (what was committed is dropped, the rest stays). */
static long drop(struct space *sp, struct view *v, int commit)
{
	long n = 0;
	for (int c = 0; c < v->nchunk; c++)
		for (int i = 0; i < 512 && v->ch[c].used; i++) {
			uint64_t e = v->ch[c].pt[i], tw = v->ch[c].twin[i];
			if (!(e & PTE_P))
				continue;
			uint64_t va = v->ch[c].base + (uint64_t)i * PGSIZE;
			if (tw && commit) {
				int r = commit_page(sp, va, P2V(e & PTE_ADDR), P2V(tw));
				if (r < 0)
					return r;
				n += r;
			} else if (!commit)
				n += tw != 0;
			v->ch[c].pt[i] = 0;
			v->ch[c].used--;
			invlpg(va);
			vstat(VS_INVLPG, 1);
			vstat(VS_DROPPED, 1);      /* (only this CPU has the view loaded, if any does) */
			if (tw) {
				page_free(P2V(e & PTE_ADDR));
				page_free(P2V(tw));
				v->ch[c].twin[i] = 0;
				uncharge(sp, v, 2);
			} else {
				frame_put(e & PTE_ADDR);
				uncharge(sp, v, 1);
			}
		}
	return n;
}

/* ---- Building and ending ---- */

/* Does [a, a+len) hold anything that is not the space's own private
   memory: a segment, a file's pages, a VP page? sp->lock held. */
static int busy(struct space *sp, uint64_t a, uint64_t len)
{
	uint64_t end = a + len;
	if (segmap_in(sp, a, end))
		return 1;
	for (int i = 0; i < sp->nlazy; i++)
		if (sp->lazy[i].ino && sp->lazy[i].start < end && a < sp->lazy[i].end)
			return 1;
	uint64_t *pte;
	for (uint64_t va = a; (pte = vm_next(sp->pml4, &va, end)); va += PGSIZE)
		if (*pte & (PTE_SHARED | PTE_KERNEL))
			return 1;
	return 0;
}

/* Tables a new range [a, end) needs beyond those v has. */
static uint64_t tables_needed(struct view *v, uint64_t a, uint64_t end)
{
	uint64_t n = 2 * ((end - a) / VIEW_ALIGN);        /* PT and twin index per chunk */
	for (int level = 2; level >= 1; level--) {
		uint64_t span = 1UL << (12 + 9 * (level + 1));
		for (uint64_t b = base(a, level); b < end; b += span)
			n += !up_find(v, level, b);
	}
	return n;
}

/* A page off the list pre-allocated for the build. */
static uint64_t *take(void **list)
{
	uint64_t *p = *list;
	*list = *(void **)p;
	*(void **)p = 0;             /* (pages come zeroed; the link word back to 0) */
	return p;
}

/* Link the private tables for [a, end) into v, copying the space's
   entries; every page they need is on *list. sp->lock held. */
static void build(struct space *sp, struct view *v, uint64_t a, uint64_t end, void **list)
{
	for (int level = 2; level >= 1; level--) {
		uint64_t span = 1UL << (12 + 9 * (level + 1));
		for (uint64_t b = base(a, level); b < end; b += span) {
			if (up_find(v, level, b))
				continue;
			uint64_t *t = take(list), *parent = level == 2 ? v->root : up_find(v, 2, b);
			uint64_t *sp_parent = level == 2 ? sp->pml4 : 0;
			if (level == 1) {
				uint64_t e = sp->pml4[idx(b, 3)];
				sp_parent = (e & PTE_P) ? P2V(e & PTE_ADDR) : 0;
			}
			uint64_t se = sp_parent ? sp_parent[idx(b, level + 1)] : 0;
			if (se & PTE_P)
				memcpy(t, P2V(se & PTE_ADDR), PGSIZE);
			parent[idx(b, level + 1)] = V2P(t) | PTE_UP;
			v->up[v->nup].base = b;
			v->up[v->nup].level = level;
			v->up[v->nup++].t = t;
		}
	}
	for (uint64_t b = a; b < end; b += VIEW_ALIGN) {
		int c = v->nchunk++;
		v->ch[c].base = b;
		v->ch[c].pt = take(list);
		v->ch[c].twin = take(list);
		up_find(v, 1, b)[idx(b, 1)] = V2P(v->ch[c].pt) | PTE_UP;
	}
}

static void destroy(struct space *sp, struct view *v)
{
	drop(sp, v, 0);
	for (int c = 0; c < v->nchunk; c++) {
		page_free(v->ch[c].pt);
		page_free(v->ch[c].twin);
	}
	for (int i = 0; i < v->nup; i++)
		page_free(v->up[i].t);
	page_free(v->root);
	uncharge(sp, v, 2 * v->nchunk + v->nup + 1);
	kfree_user(sp, v, sizeof *v);
}

static long check_range(struct view *v, uint64_t a, uint64_t len)
{
	if (a % VIEW_ALIGN || len % VIEW_ALIGN || !len || a < USER_BASE || a >= USER_TOP ||
	    len > USER_TOP - a || len > VIEW_MAXLEN)
		return -EINVAL;
	if (a < VP_RESERVED_HI && a + len > VP_RESERVED_LO)
		return -EBUSY;
	if (!v)
		return 0;
	if (v->nr == VIEW_MAXRANGES || v->len + len > VIEW_MAXLEN)
		return -EINVAL;
	for (int i = 0; i < v->nr; i++)
		if (a < v->r[i].end && v->r[i].start < a + len)
			return -EINVAL;
	return 0;
}

long sys_view_enter(uint64_t a, uint64_t len, uint64_t x2, uint64_t x3, uint64_t x4, uint64_t x5)
{
	(void)x2, (void)x3, (void)x4, (void)x5;
	struct vp *vp = myvp();
	struct space *sp = vp->space;
	struct view *v = vp->view, *nv = 0;
	long r = check_range(v, a, len);
	if (r)
		return r;
	if (!v && !(v = nv = kzalloc_user(sp, sizeof *v)))
		return -ENOMEM;
	uint64_t n = tables_needed(v, a, a + len) + (nv != 0);
	void *list = 0;
	if (!charge(sp, v, n))
		goto nomem;
	for (uint64_t i = 0; i < n; i++) {
		void *pg = pages_alloc_user(1);
		if (!pg) {
			while (list)
				page_free(take(&list));
			uncharge(sp, v, n);
			goto nomem;
		}
		*(void **)pg = list;
		list = pg;
	}
	spin_lock(&sp->lock);
	if (busy(sp, a, len)) {
		spin_unlock(&sp->lock);
		while (list)
			page_free(take(&list));
		uncharge(sp, v, n);
		r = -EBUSY;
		goto out;
	}
	if (nv) {
		nv->root = take(&list);
		memcpy(nv->root, sp->pml4, PGSIZE);      /* the user half, and the kernel's */
	}
	v->r[v->nr].start = a;
	v->r[v->nr].end = a + len;
	v->r[v->nr++].chunk0 = v->nchunk;
	v->len += len;
	build(sp, v, a, a + len, &list);
	vp->view = v;                    /* (under the lock: view_unlink) */
	spin_unlock(&sp->lock);
	lcr3(V2P(v->root));
	vstat(VS_CR3_VIEW, 1);          /* (also drops the space's entries the range had cached) */
	return 0;
nomem:
	r = -ENOMEM;
out:
	if (nv)
		kfree_user(sp, nv, sizeof *nv);
	return r;
}

long sys_view_commit(uint64_t x0, uint64_t x1, uint64_t x2, uint64_t x3, uint64_t x4, uint64_t x5)
{
	(void)x0, (void)x1, (void)x2, (void)x3, (void)x4, (void)x5;
	struct vp *vp = myvp();
	if (!vp->view)
		return -EINVAL;
	uint64_t t0 = rdtsc();
	long n = drop(vp->space, vp->view, 1);
	vstat(VS_COMMITS, 1);
	vstat(VS_COMMIT_PAGES, n > 0 ? (uint64_t)n : 0);
	vstat(VS_COMMIT_TSC, rdtsc() - t0);
	return n;
}

long sys_view_discard(uint64_t x0, uint64_t x1, uint64_t x2, uint64_t x3, uint64_t x4, uint64_t x5)
{
	(void)x0, (void)x1, (void)x2, (void)x3, (void)x4, (void)x5;
	struct vp *vp = myvp();
	return vp->view ? drop(vp->space, vp->view, 0) : -EINVAL;
}

long sys_view_leave(uint64_t x0, uint64_t x1, uint64_t x2, uint64_t x3, uint64_t x4, uint64_t x5)
{
	(void)x0, (void)x1, (void)x2, (void)x3, (void)x4, (void)x5;
	struct vp *vp = myvp();
	struct view *v = vp->view;
	if (!v)
		return -EINVAL;
	long n = drop(vp->space, v, 0);
	spin_lock(&vp->space->lock);
	vp->view = 0;                /* (no view_unlink finds it now) */
	spin_unlock(&vp->space->lock);
	lcr3(vp->space->cr3);        /* before its tables go */
	vstat(VS_CR3_VIEW, 1);
	destroy(vp->space, v);
	return n;
}

/* vp_free: the VP runs nowhere, so nothing has its view loaded. */
void view_free(struct vp *vp)
{
	if (vp->view)
		destroy(vp->space, vp->view);
	vp->view = 0;
}

/* sched.c: a VP in a view runs on its own tables; when it stops, the
   CPU goes back to the space's, so a view's tables are loaded only while
   their VP runs. */
void view_load(struct vp *vp)
{
	if (vp->view) {
		lcr3(V2P(vp->view->root));
		vstat(VS_CR3_VIEW, 1);
	}
}

void view_unload(struct cpu *c)
{
	if (c->cr3_space && (rcr3() & PTE_ADDR) != c->cr3_space->cr3) {
		lcr3(c->cr3_space->cr3);
		vstat(VS_CR3_VIEW, 1);
	}
}
