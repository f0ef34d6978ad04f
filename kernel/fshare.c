/*
 * One frame per file page for every space's MAP_SHARED mapping of it
 * (fmap.c): the table of (inode, page) -> frame that makes shared file
 * mappings coherent across spaces. The first space to touch a page reads
 * it into a frame of its own and enters it here; every later touch, in
 * any space, maps that frame (one more holder, cow.c's count), and fork
 * keeps it shared and writable (fork.c), never copy-on-write (cow_pte).
 *
 * The table has an entry for every frame of memory (indexed by frame
 * number, 16 bytes a frame: 0.4% of memory, made at boot), so it is
 * never full: before, a fixed 4,096 entries were, and past them a page
 * became the space's own copy, silently not shared. Lookups by (inode,
 * page) go through hash chains; the entry of a frame being let go is
 * found at once (it was a scan of the whole table).
 *
 * An entry lives while some space maps its frame, or while the table
 * holds the frame for a write-back. Dropping a holder (frame_put ->
 * fshare_put) happens under fs_lock, so the last holder takes the entry
 * out before the frame is freed, and a lookup, under the same lock,
 * never shares a frame that is going. The holders are charged as
 * cow.c's: a whole page each.
 *
 * Stores: a holder that lets go of its mapping without msync (an _exit,
 * a kill, an exec, an unmap's replacement) and whose entry had D set
 * (or PTE_FDIRTY) marks the entry dirty (fshare_dirty, vm.c and tlb.c).
 * When the last holder of a dirty page goes, the table keeps the frame
 * (it is its holder now: F_HELD) and queues it; the next file call of
 * any space, or the halt, writes it to the file through the block cache
 * (fshare_flush from orphan_reap) and lets it go. Before, such stores
 * were lost, where Linux writes them back. At most heldmax frames are
 * kept so (past it a dying holder's stores are dropped and counted, a
 * line printed once): the frames are no space's any more, so their
 * number is bounded here (docs/security.md).
 *
 * File calls: a write() copies its bytes into the frames over its range
 * too (fshare_write), a read() takes the frames' bytes over its range
 * (fshare_read), so every space's map and file calls agree. A truncation
 * takes the pages past the new size out of the table (their holders
 * keep them until they unmap; a new touch past the end is the usual
 * fault) and zeroes the frame of the page the new end falls in past it;
 * freeing the inode takes all its pages out, so a reused inode number
 * never finds an old file's frames.
 *
 * Lock order: fs_lock is innermost (taken in frame_put, under space and
 * file system locks); nothing is taken inside it.
 */
#include "kernel.h"
#include "ext2.h"

#define NONE 0xffffffffu
#define NICOUNT 4096             /* entries per inode bucket: a file call skips files with none */
#define F_DIRTY 1                /* a holder let go with stores not written back */
#define F_HELD  2                /* the table holds the frame (no space does) until written */
#define F_BUSY  4                /* being written (fshare_flush) */
#define F_QUEUED 8               /* on the write-back queue (kept across reuse of the slot) */

struct fpage {
	uint32_t ino;            /* 0: the frame is not in the table */
	uint32_t pg;             /* the page's index in the file (a file has < 2^28) */
	uint32_t next;           /* the next frame in its hash chain, or NONE */
	uint16_t flags;          /* F_* */
	uint16_t pad;
};
_Static_assert(sizeof(struct fpage) == 16, "fshare: 16 bytes a frame");

static struct spinlock fs_lock = SPINLOCK_INIT("fshare");
static struct fpage *tab;            /* fs_lock: indexed by frame number */
static uint32_t *head, nhash;        /* fs_lock: chains */
static uint32_t *queue, nqueue;      /* fs_lock: frames to write back (a ring of heldmax) */
static uint32_t qhead;
static uint32_t icount[NICOUNT];     /* fs_lock to change: entries of inodes ino % NICOUNT */
static uint64_t nbits, nheld, stat_lost;
static uint32_t heldmax;           /* frames the table may hold for write-back */
static uint32_t nbusy;             /* fs_lock: write-backs claimed, not yet done (claim .. written) */

void fshare_init(uint64_t nframes)
{
	nbits = nframes;
	for (nhash = 64; nhash < nframes / 4; nhash *= 2)
		;
	heldmax = (uint32_t)MAX(nframes / 16, 64);
	tab = pages_alloc(PGROUNDUP(nframes * sizeof *tab) / PGSIZE);
	head = pages_alloc(PGROUNDUP(nhash * 4UL) / PGSIZE);
	queue = pages_alloc(PGROUNDUP(heldmax * 4UL) / PGSIZE);
	if (!tab || !head || !queue)
		panic("fshare_init: no memory for %lu frames' entries", nframes);
	for (uint32_t i = 0; i < nhash; i++)
		head[i] = NONE;
}

static uint32_t *chain(uint32_t ino, uint64_t pg)
{
	return &head[(ino * 31 + pg * 0x9e3779b1u) % nhash];
}

static uint32_t fno(uint64_t pa)
{
	return (uint32_t)(pa / PGSIZE);
}

static int marked(uint64_t pa)
{
	uint64_t n = pa / PGSIZE;
	return tab && n < nbits && __atomic_load_n(&tab[n].ino, __ATOMIC_ACQUIRE) != 0;
}

/* Is frame pa a shared file page (never copy-on-write)? */
int fshare_is(uint64_t pa)
{
	return marked(pa);
}

/* The link to (ino, pg)'s entry in its chain, or 0. fs_lock held. */
static uint32_t *find(uint32_t ino, uint64_t pg)
{
	if (!icount[ino % NICOUNT])
		return 0;
	uint32_t *p = chain(ino, pg);
	for (; *p != NONE; p = &tab[*p].next)
		if (tab[*p].ino == ino && tab[*p].pg == pg)
			return p;
	return 0;
}

/* The link to frame n's entry in its chain. fs_lock held. */
static uint32_t *link_of(uint32_t n)
{
	uint32_t *p = chain(tab[n].ino, tab[n].pg);
	while (*p != n)
		p = &tab[*p].next;
	return p;
}

/* Take frame n's entry out of the table: 1 if the table held the frame
   and that was its last holder (the caller frees it). fs_lock held. */
static int drop(uint32_t n)
{
	struct fpage *e = &tab[n];
	uint32_t *p = link_of(n);
	int last = 0;
	*p = e->next;
	icount[e->ino % NICOUNT]--;
	if (e->flags & F_HELD) {
		nheld--;
		last = frame_unhold((uint64_t)n * PGSIZE);
	}
	e->flags &= F_QUEUED;
	__atomic_store_n(&e->ino, 0, __ATOMIC_RELEASE);
	return last;
}

/* The frame of (ino, pg) with one more holder (the caller's), or 0. */
uint64_t fshare_get(uint32_t ino, uint64_t pg)
{
	spin_lock(&fs_lock);
	uint32_t *p = find(ino, pg);
	uint64_t pa = p && frame_share((uint64_t)*p * PGSIZE) ? (uint64_t)*p * PGSIZE : 0;
	spin_unlock(&fs_lock);
	return pa;
}

/* The caller read (ino, pg) into its fresh frame pa: enter it. Returns
   the frame to map: pa, or another space's, entered meanwhile, with a
   holder for the caller (the caller frees pa). */
uint64_t fshare_add(uint32_t ino, uint64_t pg, uint64_t pa)
{
	spin_lock(&fs_lock);
	uint32_t *p = find(ino, pg);
	if (p && frame_share((uint64_t)*p * PGSIZE)) {
		pa = (uint64_t)*p * PGSIZE;
	} else if (!p && fno(pa) < nbits) {
		struct fpage *e = &tab[fno(pa)];
		e->pg = (uint32_t)pg;
		e->next = *chain(ino, pg);
		e->flags &= F_QUEUED;
		icount[ino % NICOUNT]++;
		__atomic_store_n(&e->ino, ino, __ATOMIC_RELEASE);
		*chain(ino, pg) = fno(pa);
	}
	spin_unlock(&fs_lock);
	return pa;
}

/* A holder of pa let go of it with stores in it (its PTE's D or
   PTE_FDIRTY): they are to reach the file (vm.c, tlb.c). */
void fshare_dirty(uint64_t pa)
{
	if (!marked(pa))
		return;
	spin_lock(&fs_lock);
	if (marked(pa))
		tab[fno(pa)].flags |= F_DIRTY;
	spin_unlock(&fs_lock);
}

/* Queue frame n for a write-back (it is not queued). fs_lock held. */
static void enqueue(uint32_t n)
{
	queue[(qhead + nqueue++) % heldmax] = n;
	tab[n].flags |= F_QUEUED;
}

/* frame_put of pa (cow.c): 1 if done here (a marked frame: the last
   holder takes its entry out and frees it, or leaves a dirty one to the
   table), 0 for the usual path. */
int fshare_put(uint64_t pa)
{
	if (!fshare_is(pa))
		return 0;
	spin_lock(&fs_lock);
	int last = -1, lost = 0;
	uint32_t n = fno(pa);
	if (marked(pa) && (last = frame_unhold(pa))) {
		struct fpage *e = &tab[n];
		if ((e->flags & F_DIRTY) && nheld < heldmax && (e->flags & F_QUEUED || nqueue < heldmax)) {
			e->flags |= F_HELD;          /* the table is its holder now */
			nheld++;
			if (!(e->flags & F_QUEUED))
				enqueue(n);
			last = 0;
		} else {
			lost = (e->flags & F_DIRTY) && stat_lost++ == 0;
			drop(n);
		}
	}
	spin_unlock(&fs_lock);
	if (lost)
		kprintf("@warn {\"what\": \"shared file pages not written back: too many held\", \"most\": %u}\n",
			heldmax);
	if (last == 1)
		page_free(P2V(pa));
	return last >= 0;
}

/* ino was truncated to size bytes: its pages past it leave the table
   (their holders keep them), the one holding the end is zeroed past it. */
void fshare_trunc(uint32_t ino, uint64_t size)
{
	spin_lock(&fs_lock);
	for (uint32_t n = 0; icount[ino % NICOUNT] && n < nbits; n++) {
		struct fpage *e = &tab[n];
		if (e->ino != ino || (uint64_t)e->pg * PGSIZE + PGSIZE <= size)
			continue;
		if ((uint64_t)e->pg * PGSIZE < size) {
			memset((char *)P2V((uint64_t)n * PGSIZE) + size % PGSIZE, 0, PGSIZE - size % PGSIZE);
		} else if (drop(n)) {             /* (a held frame's last holder was the table) */
			spin_unlock(&fs_lock);    /* (nothing is taken under fs_lock) */
			page_free(P2V((uint64_t)n * PGSIZE));
			spin_lock(&fs_lock);
		}
	}
	spin_unlock(&fs_lock);
}

/* Copy between user bytes [ubuf, ubuf+n), file bytes from off, and the
   shared frames of ino there: into them (to 1, a write) or out of them. */
static void copy(uint32_t ino, uint64_t off, uint64_t ubuf, uint64_t n, int to)
{
	uint64_t end = off + n;
	if (!n || end < off || !__atomic_load_n(&icount[ino % NICOUNT], __ATOMIC_RELAXED))
		return;
	for (uint64_t pg = off / PGSIZE; pg * PGSIZE < end; pg++) {
		uint64_t pa = fshare_get(ino, pg);
		if (!pa)
			continue;
		uint64_t a = MAX(off, pg * PGSIZE), b = MIN(end, pg * PGSIZE + PGSIZE);
		char *k = (char *)P2V(pa) + a % PGSIZE;
		if (to)
			copyin(k, ubuf + (a - off), b - a);    /* (a fault: that part keeps what it had) */
		else
			copyout(ubuf + (a - off), k, b - a);
		frame_put(pa);
	}
}

/* A write put user bytes [ubuf, ubuf+n) at file offset off of ino. */
void fshare_write(uint32_t ino, uint64_t off, uint64_t ubuf, uint64_t n)
{
	copy(ino, off, ubuf, n, 1);
}

/* A read put file bytes from off of ino at [ubuf, ubuf+n): the shared
   frames' bytes there replace them (their stores not yet written back). */
void fshare_read(uint32_t ino, uint64_t off, uint64_t ubuf, uint64_t n)
{
	copy(ino, off, ubuf, n, 0);
}

/* Write frame pa, page pg of ino, to the file (up to its size now): 0,
   -EBWAIT (not waited for, or the thread blocked) or an error. */
static long page_write(uint32_t ino, uint64_t pg, uint64_t pa, int how)
{
	struct fsctx c;
	struct inode ip;
	uint64_t done = 0, at, n;
	long r;
	for (;;) {
		c = (struct fsctx){ 0 };
		if ((r = ext2_iget(&c, ino, &ip)) != -EBWAIT || (r = fs_wait(&c, how)) != 1)
			break;
	}
	if (r || !IS_REG(&ip) || pg * PGSIZE >= ip.size)
		return r;                  /* (truncated or freed meanwhile: nothing to write) */
	n = MIN(PGSIZE, ip.size - pg * PGSIZE);
	while (done < n) {
		c = (struct fsctx){ .to = FS_KERNEL, .kdst = (uint8_t *)P2V(pa) + done };
		r = ext2_write(&c, ino, pg * PGSIZE + done, 0, n - done, 0, &at);
		if (r == -EBWAIT && (r = fs_wait(&c, how)) == 1)
			continue;
		if (r <= 0)
			return r ? r : -EIO;
		done += (uint64_t)r;
	}
	return 0;
}

/* The next queued dirty frame, with a holder for the caller, its entry
   marked busy: its frame number, or NONE. */
static uint32_t claim(uint32_t *ino, uint64_t *pg)
{
	uint32_t n = NONE;
	spin_lock(&fs_lock);
	while (n == NONE && nqueue) {
		uint32_t m = queue[qhead];
		qhead = (qhead + 1) % heldmax;
		nqueue--;
		struct fpage *e = &tab[m];
		e->flags &= (uint16_t)~F_QUEUED;
		if (e->ino && (e->flags & F_HELD) && !(e->flags & F_BUSY) && frame_share((uint64_t)m * PGSIZE)) {
			e->flags = (uint16_t)((e->flags & ~F_DIRTY) | F_BUSY);
			nbusy++;
			*ino = e->ino;
			*pg = e->pg;
			n = m;
		}
	}
	spin_unlock(&fs_lock);
	return n;
}

/* Frame n was written (r 0) or not: the table lets it go, or queues it
   again (stored to meanwhile, or not written); the caller's hold goes. */
static void written(uint32_t n, uint32_t ino, long r)
{
	spin_lock(&fs_lock);
	struct fpage *e = &tab[n];
	nbusy--;
	if (e->ino == ino && (e->flags & F_BUSY)) {
		e->flags &= (uint16_t)~F_BUSY;
		if (r == -EBWAIT || r == -EAGAIN)
			e->flags |= F_DIRTY;      /* (not written: again at another call) */
		if (!(e->flags & F_DIRTY) || (!(e->flags & F_QUEUED) && nqueue >= heldmax)) {
			e->flags &= (uint16_t)~(F_HELD | F_DIRTY);   /* (we still hold it: not its last holder) */
			nheld--;
			frame_unhold((uint64_t)n * PGSIZE);
		} else if (!(e->flags & F_QUEUED)) {
			enqueue(n);
		}
	}
	spin_unlock(&fs_lock);
	frame_put((uint64_t)n * PGSIZE);
}

/*
 * Is a page of ino being written back now (claimed, not yet written)?
 * The write runs without the file system's lock, so freeing ino then
 * (ext2w.c, under that lock) must wait: its number, reused by a new
 * file, would get the old file's page (fsrace's copies read another
 * process's file). Claims are made under fs_lock, frees drop the entries
 * under it, so a claim after the free finds nothing.
 */
int fshare_busy(uint32_t ino)
{
	int r = 0;
	spin_lock(&fs_lock);
	for (uint32_t n = 0; nbusy && icount[ino % NICOUNT] && n < nbits && !r; n++)
		r = tab[n].ino == ino && (tab[n].flags & F_BUSY);
	spin_unlock(&fs_lock);
	return r;
}

/* Frame pa, stored to by a space the halt does not wait to take down:
   the table holds it too, dirty and queued, so the halt's flush writes
   it (its space keeps its own hold: nothing is freed at the halt). */
static void halt_hold(uint64_t pa)
{
	spin_lock(&fs_lock);
	struct fpage *e = &tab[fno(pa)];
	if (marked(pa) && !(e->flags & F_HELD) && nheld < heldmax &&
	    (e->flags & F_QUEUED || nqueue < heldmax) && frame_share(pa)) {
		e->flags |= F_HELD | F_DIRTY;
		nheld++;
		if (!(e->flags & F_QUEUED))
			enqueue(fno(pa));
	}
	spin_unlock(&fs_lock);
}

static void halt_level(const uint64_t *t, int level)
{
	for (int i = 0; i < 512; i++) {
		uint64_t e = t[i];
		if (level && (e & PTE_P))
			halt_level(P2V(e & PTE_ADDR), level - 1);
		else if (!level && (e & PTE_MAPPED) && !(e & PTE_SHARED) && (e & (PTE_D | PTE_FDIRTY)))
			halt_hold(e & PTE_ADDR);
	}
}

/*
 * The halt comes at the end of the last space (space_finish), before
 * its memory is taken down (space_put, once every CPU let go of it): the
 * stores in its shared file pages, which the take-down would leave to
 * the table (fshare_put), are queued now, so the halt's flush writes
 * them as Linux writes back an ending process's MAP_SHARED pages. So
 * are those of every space that ended earlier and that some CPU still
 * held at the halt (space.c's list of ended spaces, halt_ended).
 */
void fshare_halt_space(uint64_t *pml4)
{
	for (int i = 0; pml4 && i < 256; i++)
		if (pml4[i] & PTE_P)
			halt_level(P2V(pml4[i] & PTE_ADDR), 2);
}

/*
 * Write back the frames whose last holder left stores (orphan_reap, at
 * the start of a file call; the halt): 0, -EBWAIT (the thread blocked,
 * or `how` does not wait) or -EAGAIN (it cannot wait now): the rest
 * stays queued. A page the disk or the file system fails (-EIO,
 * -ENOSPC) is dropped, as an msync's would be reported once.
 */
long fshare_flush(int how)
{
	uint32_t n, ino;
	uint64_t pg;
	long r = 0;
	while (!r && __atomic_load_n(&nqueue, __ATOMIC_ACQUIRE) && (n = claim(&ino, &pg)) != NONE) {
		r = page_write(ino, pg, (uint64_t)n * PGSIZE, how);
		written(n, ino, r);
		r = r == -EBWAIT || r == -EAGAIN ? r : 0;
	}
	return r;
}
