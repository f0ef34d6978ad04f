/*
 * The block cache: buffers of one 4 KiB block each, found by a hash on
 * the block number and reused least recently used first. Its size
 * follows memory: a floor of FLOOR buffers is taken at boot when a disk
 * is found; past it a miss takes a fresh frame from the free pool while
 * twice the kernel's reserve stays free (page_alloc_cache), up to a
 * ceiling of a quarter of the free memory at boot (at most MAXBUF: the
 * headers, 88 bytes a buffer, are one array from boot, 2.1% of the
 * ceiling, so a 512 MiB guest gives 3 MiB to them). Those frames are the
 * kernel's, charged to no space; when memory is short the allocator
 * takes them back (bcache_reclaim: clean, idle, unheld, unpinned buffers,
 * coldest first; dirty ones are started on their way out instead), and
 * INFO_MEM_AVAIL counts them as available. `bcache=N` fixes the cache
 * at N buffers (floor = ceiling), so tests can reach the eviction paths.
 * Buffers are kernel memory reached only through the direct map: nothing
 * maps them to users (fmap.c copies into the space's own pages), so a
 * frame may be freed as soon as no call holds it (refs) and no request
 * is on it (B_READING/B_WRITING).
 *
 * Nobody sleeps here. A caller that needs a block the cache does not
 * have gets BWAIT and the buffer to wait for; the wait itself is
 * a kop (sysdisk.c), so a thread blocks with an upcall or its VP blocks,
 * and the system call is run again when the buffer's request ends
 * (bcache_done wakes the waiters on DISKKEY_TAG | index). A request the
 * device has not answered after DISK_TIMEOUT_NS gives -EIO to its
 * waiters; its buffer stays out of use until the device answers, since
 * the device may still write into it.
 *
 * A buffer read for a waiter is kept for it (bcache_pin): until a call
 * finds it in the cache, at most PIN_NS, and never more than 7/8 of the
 * buffers at once. Without it a thread that waits long to run again
 * (prio with thousands of readers) found its block reused and asked the
 * disk again, dozens of times per read.
 *
 * A write dirties a buffer; dirty buffers go to the disk on bcache_sync
 * and at halt (bcache_halt_flush), and when they would be reused. Lock
 * order: bcache_lock, then blk_lock, then pmm_lock; kop_lock is never
 * held with either.
 */
#include "kernel.h"
#include "disk.h"

#define FLOOR 512                       /* buffers taken at boot */
#define MAXBUF (1 << 18)                /* the ceiling's most (1 GiB): headers are taken at boot */
#define NHASH 4096
#define PIN_NS (2UL * 1000000000UL)     /* how long a buffer is kept for its waiter */

static struct spinlock bcache_lock = SPINLOCK_INIT("bcache");
static struct buf *bufs;               /* nhdr headers, from boot; index = position */
static struct buf *hash[NHASH];
static struct buf lru;                 /* list head: lru.next most recent */
static struct buf *spare;              /* headers without a page (on hnext) */
static int ndirty, nhdr, nfloor, nbuf, npinned;   /* nbuf: headers with a page */
static uint64_t stat[BC_NSTAT];        /* INFO_BCACHE's counts */
uint64_t bcache_fixed;                 /* bcache=N (cmdline.c); 0: sized to memory */

static struct buf **bucket(uint64_t block)
{
	return &hash[block % NHASH];
}

static void lru_unlink(struct buf *b)
{
	b->prev->next = b->next;
	b->next->prev = b->prev;
}

static void lru_front(struct buf *b)
{
	b->next = lru.next;
	b->prev = &lru;
	lru.next->prev = b;
	lru.next = b;
}

void bcache_init(void)
{
	if (!disk_blocks)
		return;
	uint64_t ceil = MAX((uint64_t)FLOOR, MIN(pmm_free_pages() / 4, (uint64_t)MAXBUF));
	if (bcache_fixed)
		ceil = MIN(bcache_fixed, pmm_free_pages() / 2);
	nhdr = (int)ceil;
	nfloor = bcache_fixed ? nhdr : FLOOR;
	if (!(bufs = pages_alloc(PGROUNDUP(nhdr * sizeof *bufs) / PGSIZE)))
		panic("bcache: no memory for %d buffer headers at boot", nhdr);
	lru.next = lru.prev = &lru;
	for (int i = nhdr - 1; i >= 0; i--) {
		struct buf *b = &bufs[i];
		b->index = i;
		b->block = ~0UL;
		if (i >= nfloor) {
			b->hnext = spare;
			spare = b;
			continue;
		}
		if (!(b->data = page_alloc()))
			panic("bcache: no memory for %d buffers at boot", nfloor);
		lru_front(b);
		nbuf++;
	}
}

/* One more buffer with a fresh frame, at the cold end (bcache_lock held),
   while under the ceiling and memory is plentiful; else 0. */
static struct buf *grow(void)
{
	uint8_t *pg = spare ? page_alloc_cache() : 0;
	if (!pg)
		return 0;
	struct buf *b = spare;
	spare = b->hnext;
	b->hnext = 0;
	b->data = pg;
	b->state = B_EMPTY;
	b->block = ~0UL;
	lru_front(b);
	nbuf++;
	stat[BC_GROWN]++;
	return b;
}

/* Is b kept for a waiter now? An expired keep is dropped here. */
static int pinned(struct buf *b, uint64_t now)
{
	if (!b->pins)
		return 0;
	if (now < b->pin_ns)
		return 1;
	npinned -= b->pins;
	b->pins = 0;
	stat[BC_EXPIRED]++;
	return 0;
}

static struct buf *lookup(uint64_t block)
{
	for (struct buf *b = *bucket(block); b; b = b->hnext)
		if (b->block == block)
			return b;
	return 0;
}

static void unhash(struct buf *b)
{
	for (struct buf **pp = bucket(b->block); *pp; pp = &(*pp)->hnext)
		if (*pp == b) {
			*pp = b->hnext;
			break;
		}
	b->block = ~0UL;
}

/* b's request ended (bcache_lock held): from the device's interrupt, or
   at once on the RAM disk. */
static void ended(struct buf *b, int ok)
{
	if (b->state == B_READING)
		b->state = ok ? B_VALID : B_EMPTY;
	else if (b->state == B_WRITING)
		b->state = B_VALID;       /* a failed write keeps its error for sync
		                             (it stayed B_WRITING, and a sync waited
		                             DISK_TIMEOUT_NS to call it overdue) */
	if (!ok) {                    /* nothing to keep for the waiters */
		npinned -= b->pins;
		b->pins = 0;
	}
}

static void start_write(struct buf *b)
{
	b->dirty = 0;
	ndirty--;
	b->state = B_WRITING;
	if (blk_submit(b, 1) > 0 && (ended(b, 1), b->err)) {
		b->dirty = 1;             /* the RAM disk had no frame for it: still dirty */
		ndirty++;
	}
}

/* A buffer to reuse (bcache_lock held): the least recently used one that
   nobody holds, clean and idle; 0 if none (then up to 16 dirty ones from
   the cold end are started on their way out, and *wait is one to wait for). */
static struct buf *victim(struct buf **wait)
{
	*wait = 0;
	uint64_t now = now_ns();
	/* Past half the cache dirty, the coldest dirty buffers start on their
	   way out now: else a writer keeps one clean buffer, and two blocks a
	   call needs together evict each other for good (ext2w.c). */
	for (struct buf *b = lru.prev; ndirty > nbuf / 2 && b != &lru; b = b->prev)
		if (!b->refs && b->dirty && b->state == B_VALID)
			start_write(b);
	for (struct buf *b = lru.prev; b != &lru; b = b->prev)
		/* (not one whose write failed: its error is the next sync's) */
		if (!b->refs && !b->dirty && (b->state == B_VALID ? !b->err : b->state == B_EMPTY) &&
		    !pinned(b, now))
			return b;
	int n = 0;
	for (struct buf *b = lru.prev; b != &lru && n < 16; b = b->prev)
		if (!b->refs && b->dirty && b->state == B_VALID) {
			start_write(b);
			if (b->state == B_VALID && !b->dirty)
				return b;         /* written already (RAM disk) */
			if (b->state == B_WRITING)
				*wait = b;
			n++;
		}
	for (struct buf *b = lru.prev; !*wait && b != &lru; b = b->prev)
		if (b->state == B_READING || b->state == B_WRITING)
			*wait = b;
	return 0;
}

/* The buffer for `block`, made to hold it (bcache_lock held): 0 and *b
   the buffer, or BWAIT with *b the one to wait for (no buffer free). */
static long claim(uint64_t block, struct buf **out)
{
	struct buf *w = 0, *b = grow();
	if (!b)
		b = victim(&w);
	if (!b) {
		*out = w;
		return w ? BWAIT : -EAGAIN;   /* (every buffer held by a syscall) */
	}
	if (b->block != ~0UL)
		unhash(b);
	b->block = block;
	b->hnext = *bucket(block);
	*bucket(block) = b;
	b->err = 0;
	b->state = B_EMPTY;
	*out = b;
	return 0;
}

/* The buffer for `block`, found or claimed, now the most recently used
   (bcache_lock held): 0 with *out it, or claim's BWAIT or -EAGAIN. */
static long get(uint64_t block, struct buf **out)
{
	struct buf *b = lookup(block);
	long r = b ? 0 : claim(block, &b);
	*out = b;
	if (!r) {
		lru_unlink(b);
		lru_front(b);
	}
	return r;
}

/* A request the device has not answered in time. */
static int overdue(struct buf *b)
{
	return now_ns() - b->start_ns > DISK_TIMEOUT_NS;
}

/*
 * Block `block` for reading: 0 with *out held (bcache_put it), or
 * BWAIT with *out the buffer to wait for, or -EIO (the device
 * failed it or did not answer in time; reported once, the next call asks
 * the device again).
 */
long bcache_read(uint64_t block, struct buf **out)
{
	struct buf *b;
	spin_lock(&bcache_lock);
	long r = get(block, &b);
	if (r)
		goto out;
	if (b->state == B_VALID || b->state == B_WRITING) {
		b->refs++;            /* (a write-back leaves the data as it is) */
		stat[BC_HITS]++;
		if (b->pins) {        /* the waiter's call (or another) found it: kept */
			b->pins--;
			npinned--;
			stat[BC_KEPT]++;
		}
	} else if (b->state == B_READING) {
		r = overdue(b) ? -EIO : BWAIT;
	} else if (b->err) {
		r = b->err;
		b->err = 0;
	} else {
		b->state = B_READING;
		stat[BC_READS]++;
		r = BWAIT;
		if (blk_submit(b, 0) > 0) {   /* read already (RAM disk) */
			ended(b, !b->err);
			r = b->err;
			b->err = 0;
			if (!r)
				b->refs++;
		}
	}
out:
	*out = b;
	spin_unlock(&bcache_lock);
	return r;
}

/*
 * Block `block` to be overwritten whole: 0 with *out held and marked
 * dirty (the caller fills it, then bcache_put), or BWAIT (it is on
 * its way to or from the device: wait for *out), or -EIO as above.
 */
long bcache_write(uint64_t block, struct buf **out)
{
	struct buf *b;
	spin_lock(&bcache_lock);
	long r = get(block, &b);
	if (r)
		goto out;
	if (b->state == B_READING || b->state == B_WRITING) {
		r = overdue(b) ? -EIO : BWAIT;
		goto out;
	}
	b->state = B_VALID;
	b->err = 0;
	if (!b->dirty) {
		b->dirty = 1;
		ndirty++;
	}
	b->refs++;
out:
	*out = b;
	spin_unlock(&bcache_lock);
	return r;
}

void bcache_put(struct buf *b)
{
	spin_lock(&bcache_lock);
	b->refs--;
	spin_unlock(&bcache_lock);
}

/* b (held) was changed in place (ext2w.c): write it back later. One
   being written now is written again, since the device may have taken
   the old bytes. */
void bcache_dirty(struct buf *b)
{
	spin_lock(&bcache_lock);
	if (b->block == ~0UL) {
		/* (its block was freed while b was held, bcache_discard: the
		   bytes belong to nothing now and are never written) */
	} else if (!b->dirty) {
		b->dirty = 1;
		ndirty++;
	}
	spin_unlock(&bcache_lock);
}

/*
 * The file system freed `block` (ext2w.c): on the RAM disk its frame goes
 * back (ram_discard, a TRIM) and the cache's buffer of it, if any, is
 * dropped first, dirty or not, so it is never written back into the
 * block (which would take a frame for a free block again) nor found by
 * the block's next user, who reads zeros from the RAM disk (ext2 zeroes
 * or wholly writes a block it allocates anyway). A buffer a call holds
 * now (a lockless reader, ext2_write's copy of user bytes) keeps its
 * page and bytes for that call; out of the hash, its later changes go
 * nowhere (bcache_dirty). On a real disk nothing changes.
 */
void bcache_discard(uint64_t block)
{
	if (!ramdisk_on)
		return;
	spin_lock(&bcache_lock);
	struct buf *b = lookup(block);
	if (b && b->state != B_READING && b->state != B_WRITING) {   /* (never on the RAM disk) */
		if (b->dirty) {
			b->dirty = 0;
			ndirty--;
		}
		npinned -= b->pins;
		b->pins = 0;
		b->err = 0;
		unhash(b);
		if (!b->refs) {           /* free for the next claim: the cold end */
			b->state = B_EMPTY;
			lru_unlink(b);
			b->prev = lru.prev;
			b->next = &lru;
			lru.prev->next = b;
			lru.prev = b;
		}
	}
	ram_discard(block);
	spin_unlock(&bcache_lock);
}

/* The device finished b's request (blk.c, interrupt). */
void bcache_done(struct buf *b, int ok)
{
	spin_lock(&bcache_lock);
	ended(b, ok);
	spin_unlock(&bcache_lock);
	kop_wake_disk(DISKKEY_TAG | (uint64_t)b->index);
}

/*
 * One step of a sync: start every dirty buffer on its way out; 0 when none
 * is dirty or being written, else BWAIT with *out one being
 * written. A write that failed since the last sync gives -EIO once.
 */
long bcache_sync_step(struct buf **out)
{
	long r = 0;
	spin_lock(&bcache_lock);
	*out = 0;
	for (int i = 0; i < nhdr && disk_blocks; i++) {
		struct buf *b = &bufs[i];
		if (b->dirty && b->state == B_VALID && !b->refs)
			start_write(b);
		if (b->state == B_WRITING) {      /* (one being filled now waits for the next sync) */
			if (overdue(b))
				r = -EIO;
			else if (!*out)
				*out = b;
		} else if (b->err && b->state == B_VALID) {
			b->err = 0;
			r = -EIO;
		}
	}
	spin_unlock(&bcache_lock);
	return r ? r : *out ? BWAIT : 0;
}

/*
 * At halt (kernel_finish): write every dirty block and wait for the
 * device, polling its used ring (this CPU may have interrupts off), at
 * most DISK_TIMEOUT_NS. The count left unwritten is printed.
 */
void bcache_halt_flush(void)
{
	if (!disk_blocks)
		return;
	uint64_t end = now_ns() + DISK_TIMEOUT_NS;
	struct buf *b;
	long r;
	while ((r = bcache_sync_step(&b)) == BWAIT && now_ns() < end)
		blk_intr();
	if (r)
		kprintf("@warn {\"what\": \"disk blocks not written at halt\", \"dirty\": %d}\n", ndirty);
}

/* Keep b for the waiter about to wait for it (sysdisk.c), if it is being
   read and fewer than 7/8 of the buffers are kept: until a call finds it
   (bcache_read) or PIN_NS passed. */
void bcache_pin(struct buf *b)
{
	spin_lock(&bcache_lock);
	if (b->state == B_READING && npinned < nbuf - nbuf / 8) {
		b->pins++;
		npinned++;
		b->pin_ns = now_ns() + PIN_NS;
	}
	spin_unlock(&bcache_lock);
}

/*
 * Memory is short (pmm.c): give frames of clean, idle, unheld, unpinned
 * buffers back, coldest first, until `want` pages are free or only the
 * floor is left; dirty ones met on the way are started on their way out
 * (a later call can take them). The count given back. Never called with
 * bcache_lock held (grow allocates without reclaiming).
 */
uint64_t bcache_reclaim(uint64_t want)
{
	uint64_t got = 0;
	if (!bufs)
		return 0;
	spin_lock(&bcache_lock);
	uint64_t now = now_ns();
	want += 16;                   /* a few more: the next allocations need none */
	for (struct buf *b = lru.prev, *p; b != &lru && nbuf > nfloor &&
	     pmm_free_pages() < want; b = p) {
		p = b->prev;
		if (b->refs || b->err || pinned(b, now))
			continue;
		if (b->dirty) {
			if (b->state == B_VALID)
				start_write(b);
			continue;
		}
		if (b->state != B_VALID && b->state != B_EMPTY)
			continue;
		if (b->block != ~0UL)
			unhash(b);
		lru_unlink(b);
		page_free(b->data);
		b->data = 0;
		b->state = B_EMPTY;
		b->hnext = spare;
		spare = b;
		nbuf--;
		got++;
	}
	stat[BC_RECLAIMED] += got;
	spin_unlock(&bcache_lock);
	return got;
}

/* Frames the cache holds past its floor: given back on demand, so
   INFO_MEM_AVAIL counts them (a dirty one after its write). */
uint64_t bcache_spare_pages(void)
{
	return (uint64_t)__atomic_load_n(&nbuf, __ATOMIC_RELAXED) - (uint64_t)nfloor;
}

/* INFO_BCACHE: count `what` (BC_*), -EINVAL for another. */
long bcache_info(uint64_t what)
{
	switch (what) {
	case BC_NBUF:
		return nbuf;
	case BC_FLOOR:
		return nfloor;
	case BC_CEIL:
		return nhdr;
	case BC_PINNED:
		return npinned;
	}
	return what < BC_NSTAT && what >= BC_HITS ? (long)__atomic_load_n(&stat[what], __ATOMIC_RELAXED)
						  : -EINVAL;
}
