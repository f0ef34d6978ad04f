/*
 * One frame per file page for every space's MAP_SHARED mapping of it
 * (fmap.c): the table of (inode, page) -> frame that makes shared file
 * mappings coherent across spaces. The first space to touch a page reads
 * it into a frame of its own and enters it here; every later touch, in
 * any space, maps that frame (one more holder, cow.c's count), and fork
 * keeps it shared and writable (fork.c), never copy-on-write (cow_pte).
 *
 * The table holds no reference: an entry lives while some space maps its
 * frame. A frame in the table is marked (the bitmap `in`); dropping a
 * holder of a marked frame (frame_put -> fshare_put) happens under
 * fs_lock, so the last holder takes the entry out before the frame is
 * freed, and a lookup, under the same lock, never shares a frame that is
 * going. The holders are charged as cow.c's: a whole page each.
 *
 * Bounded: NFSHARE entries, a fixed table. When it is full a page is the
 * space's own copy, as before this table (not coherent with the other
 * spaces': docs/security.md says why that is the price).
 *
 * File calls: a write() copies its bytes into the frames over its range
 * too (fshare_write), a read() takes the frames' bytes over its range
 * (fshare_read), so every space's map and file calls agree. A truncation
 * takes the pages past the new size out of the table (their holders
 * keep them until they unmap; a new touch past the end is the usual
 * fault) and zeroes the frame of the page the new end falls in past it;
 * freeing the inode (unlink) takes all its pages out, so a reused inode
 * number never finds an old file's frames.
 *
 * Lock order: fs_lock is innermost (taken in frame_put, under space and
 * file system locks); nothing is taken inside it.
 */
#include "kernel.h"

#define NFSHARE 4096
#define NHASH 512

struct fpage {
	uint32_t ino;
	int next;                /* the next in its hash chain, or -1 */
	uint64_t pg;             /* the page's index in the file */
	uint64_t pa;             /* its frame; 0: a free entry */
};

static struct spinlock fs_lock = SPINLOCK_INIT("fshare");
static struct fpage tab[NFSHARE];    /* fs_lock */
static int head[NHASH];              /* fs_lock: chains, -1 ends */
static int nfree = -1;               /* fs_lock: the free entries' chain */
static uint8_t *in;                  /* fs_lock to change: a bit per frame in tab */
static uint64_t nbits;
static uint64_t stat_full;           /* pages left private: the table was full */

void fshare_init(uint64_t nframes)
{
	nbits = nframes;
	in = pages_alloc(PGROUNDUP((nframes + 7) / 8) / PGSIZE);
	if (!in)
		panic("fshare_init: no memory for %lu frame bits", nframes);
	for (int i = 0; i < NHASH; i++)
		head[i] = -1;
	for (int i = NFSHARE - 1; i >= 0; i--) {
		tab[i].next = nfree;
		nfree = i;
	}
}

static int *chain(uint32_t ino, uint64_t pg)
{
	return &head[(ino * 31 + pg) % NHASH];
}

static int marked(uint64_t pa)
{
	uint64_t n = pa / PGSIZE;
	return n < nbits && (__atomic_load_n(&in[n / 8], __ATOMIC_ACQUIRE) >> (n % 8) & 1);
}

static void mark(uint64_t pa, int on)
{
	uint64_t n = pa / PGSIZE;
	uint8_t m = (uint8_t)(1u << (n % 8));
	if (on)
		__atomic_or_fetch(&in[n / 8], m, __ATOMIC_ACQ_REL);
	else
		__atomic_and_fetch(&in[n / 8], (uint8_t)~m, __ATOMIC_ACQ_REL);
}

/* Is frame pa a shared file page (never copy-on-write)? */
int fshare_is(uint64_t pa)
{
	return in && marked(pa);
}

/* The entry for (ino, pg): its slot in its chain, or 0. fs_lock held. */
static int *find(uint32_t ino, uint64_t pg)
{
	int *p = chain(ino, pg);
	for (; *p >= 0; p = &tab[*p].next)
		if (tab[*p].ino == ino && tab[*p].pg == pg)
			return p;
	return 0;
}

/* Unlink the entry at slot p; its frame is no longer marked. */
static void drop(int *p)
{
	int i = *p;
	*p = tab[i].next;
	mark(tab[i].pa, 0);
	tab[i].pa = 0;
	tab[i].next = nfree;
	nfree = i;
}

/* The frame of (ino, pg) with one more holder (the caller's), or 0. */
uint64_t fshare_get(uint32_t ino, uint64_t pg)
{
	spin_lock(&fs_lock);
	int *p = find(ino, pg);
	uint64_t pa = p && frame_share(tab[*p].pa) ? tab[*p].pa : 0;
	spin_unlock(&fs_lock);
	return pa;
}

/* The caller read (ino, pg) into its fresh frame pa: enter it. Returns
   the frame to map: pa, or another space's, entered meanwhile, with a
   holder for the caller (the caller frees pa). A full table: pa, as the
   caller's own. */
uint64_t fshare_add(uint32_t ino, uint64_t pg, uint64_t pa)
{
	spin_lock(&fs_lock);
	int *p = find(ino, pg);
	if (p && frame_share(tab[*p].pa))
		pa = tab[*p].pa;
	else if (!p && nfree >= 0) {
		int i = nfree;
		nfree = tab[i].next;
		tab[i] = (struct fpage){ .ino = ino, .pg = pg, .pa = pa, .next = *chain(ino, pg) };
		*chain(ino, pg) = i;
		mark(pa, 1);
	} else if (!p)
		stat_full++;
	spin_unlock(&fs_lock);
	return pa;
}

/* frame_put of pa (cow.c): 1 if done here (a marked frame: the last
   holder takes its entry out and frees it), 0 for the usual path. */
int fshare_put(uint64_t pa)
{
	if (!fshare_is(pa))
		return 0;
	spin_lock(&fs_lock);
	int last = -1;
	if (marked(pa) && (last = frame_unhold(pa))) {
		uint64_t pg = 0;
		uint32_t ino = 0;
		for (int i = 0; i < NFSHARE; i++)      /* (rare: the last holder of a page) */
			if (tab[i].pa == pa)
				ino = tab[i].ino, pg = tab[i].pg;
		int *p = find(ino, pg);
		if (p)
			drop(p);
	}
	spin_unlock(&fs_lock);
	if (last == 1)
		page_free(P2V(pa));
	return last >= 0;
}

/* ino was truncated to size bytes: its pages past it leave the table
   (their holders keep them), the one holding the end is zeroed past it. */
void fshare_trunc(uint32_t ino, uint64_t size)
{
	spin_lock(&fs_lock);
	for (int h = 0; h < NHASH; h++)
		for (int *p = &head[h]; *p >= 0;) {
			struct fpage *e = &tab[*p];
			if (e->ino != ino || e->pg * PGSIZE + PGSIZE <= size) {
				p = &e->next;
				continue;
			}
			if (e->pg * PGSIZE < size) {
				memset((char *)P2V(e->pa) + size % PGSIZE, 0, PGSIZE - size % PGSIZE);
				p = &e->next;
			} else
				drop(p);
		}
	spin_unlock(&fs_lock);
}

/* The next entry of ino over file bytes [off, end) from index *i, with a
   holder for the caller: its frame (the caller frame_puts it), or 0. */
static uint64_t next(uint32_t ino, uint64_t off, uint64_t end, int *i, uint64_t *pg)
{
	uint64_t pa = 0;
	spin_lock(&fs_lock);
	for (; *i < NFSHARE && !pa; (*i)++) {
		struct fpage *e = &tab[*i];
		if (e->pa && e->ino == ino && e->pg * PGSIZE < end && e->pg * PGSIZE + PGSIZE > off &&
		    frame_share(e->pa))
			pa = e->pa, *pg = e->pg;
	}
	spin_unlock(&fs_lock);
	return pa;
}

/* Copy between user bytes [ubuf, ubuf+n), file bytes from off, and the
   shared frames of ino there: into them (to 1, a write) or out of them. */
static void copy(uint32_t ino, uint64_t off, uint64_t ubuf, uint64_t n, int to)
{
	uint64_t end = off + n, pg, pa;
	if (!n || end < off)
		return;
	for (int i = 0; (pa = next(ino, off, end, &i, &pg));) {
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

/* Shared pages whose last holder left stores in them (orphan_reap):
   none are kept yet, so none to write. */
long fshare_flush(int how)
{
	(void)how;
	return 0;
}
