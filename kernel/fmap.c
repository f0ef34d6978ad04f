/*
 * File mappings (SYS_fmap, SYS_msync): a range of a regular file's pages
 * in a space. A mapping is a demand-zero region (lazy.c) that names an
 * inode: its byte at va is the file's byte va + fdelta. Nothing is read
 * at the call; the first touch of a page reads it from the block cache
 * into a frame of the space's own, charged to it like any page (so the
 * memory comes back with the space, and the cache stays the fixed one of
 * bcache.c: no mapping pins a buffer).
 *
 * A touch whose blocks are not in the cache is a blocking operation of
 * kind BLK_FPAGE, waiting for the buffer as a file call does (BLK_DISK):
 * with upcalls only the thread blocks (EV_BLOCKED), and its EV_UNBLOCKED
 * context is the faulting instruction, which touches the page again and
 * now finds the block; without upcalls the VP waits. A kernel copy that
 * touches such a page (a system call given a mapped buffer) cannot wait
 * inside the copy: it maps the page if its blocks are cached, else starts
 * their reads, notes the buffer in the VP and fails; read, pread, write
 * and pwrite then wait for it and run again (fmap_copy_wait), other
 * calls return -EFAULT.
 *
 * Private mappings (the default) are copies taken at the touch, of the
 * shared frame when some space maps the page shared (its stores not yet
 * written back are the file's for every reader), else of the block
 * cache's bytes: writes stay the space's. Shared ones (FMAP_SHARED) are written back to the
 * file by msync and unmap, the pages the user wrote only (the PTE's dirty
 * bit), never past the file's size at the time. A shared page is one
 * frame for every space mapping it (fshare.c), which file calls in every
 * space see and update; the calling space's own pages are also written
 * back before its file calls and dropped after a write (fmapcoh.c).
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>
#include <anima/vp.h>

/* The file region holding va that allows an access with page-fault error
   code err, copied to *out: 1, or 0 if none. sp->lock held. */
static int region(struct space *sp, uint64_t va, uint64_t err, struct lazy *out)
{
	struct lazy *r = lazy_region(sp, va);
	if (!r || !r->ino || !(r->flags & PTE_U) || ((err & PF_W) && !(r->flags & PTE_W)) ||
	    ((err & PF_I) && (r->flags & PTE_NX)))
		return 0;
	*out = *r;
	return 1;
}

/* Map the frame pg (charged, its table made: fill_take, or made again
   if an unmap freed it meanwhile: vm_prune) at va if the
   region there is still r's and nothing is mapped there: 1. Else the
   frame and its charge go back: 1 if a page is there, 0 if not. */
static long install(struct space *sp, uint64_t va, uint64_t err, struct lazy *r, void *pg)
{
	struct lazy now;
	space_lock_settled(sp);         /* (not inside a fork's window: fork.c) */
	uint64_t *pte = space_pte(sp, va);
	int same = region(sp, va, err, &now) && now.ino == r->ino && now.fdelta == r->fdelta;
	long ret = pte && (*pte & PTE_P);
	if (same && pte && !(*pte & PTE_MAPPED)) {
		*pte = pte_user(V2P(pg), now.flags);
		pg = 0;
		ret = 1;
	}
	if (pg)
		sp->pages--;
	spin_unlock(&sp->lock);
	if (pg)
		frame_put(V2P(pg));      /* (never mapped here; maybe another space's: fshare.c) */
	return ret;
}

/*
 * Fill sp's page at va from its file: 1 when a page is mapped there (by
 * us or another thread), 0 if va is in no file region allowing the
 * access, -ENXIO past the file's end, -EBWAIT with *wait the buffer on
 * its way from the disk, -ENOMEM, or the file system's error (-EIO,
 * -EUCLEAN).
 */
static long fill(struct space *sp, uint64_t va, uint64_t err, struct buf **wait)
{
	struct lazy r;
	uint64_t *pte;
	va = PGROUNDDOWN(va);
	spin_lock(&sp->lock);
	int ok = region(sp, va, err, &r);
	uint64_t *at = ok ? vm_walk(sp->pml4, va, 0) : 0;
	int there = at && (*at & PTE_MAPPED), present = there && (*at & PTE_P);
	void *pg = ok && !there ? fill_take(sp, va, &pte) : 0;
	spin_unlock(&sp->lock);
	if (!ok || there)
		return present;
	if (!pg)
		return -ENOMEM;
	struct fsctx c = { 0 };
	struct inode ip;
	uint64_t off = va + (uint64_t)r.fdelta;
	long e = ext2_iget(&c, r.ino, &ip);
	if (!e && (!IS_REG(&ip) || off >= ip.size))
		e = -ENXIO;
	uint64_t pa = !e && r.shared ? fshare_get(r.ino, off / PGSIZE) : 0;
	if (pa) {                       /* another space's frame of this page (fshare.c) */
		page_free(pg);          /* (the charge stays: a holder pays a page) */
		return install(sp, va, err, &r, P2V(pa));
	}
	if (!e && !r.shared && (pa = fshare_get(r.ino, off / PGSIZE))) {
		/* A private copy of a page some space maps shared: the frame's
		   bytes are the file as every space sees it, stores not yet
		   written back included (read() takes them so: fshare_read);
		   the block cache may be older. Past the end: zeros, as ever. */
		memcpy(pg, P2V(pa), PGSIZE);
		frame_put(pa);
		if (ip.size - off < PGSIZE)
			memset((char *)pg + (ip.size - off), 0, PGSIZE - (ip.size - off));
		return install(sp, va, err, &r, pg);
	}
	if (!e && (e = ext2_readk(&c, &ip, off, pg, PGSIZE)) > 0)
		e = 0;                  /* (past the end: zeros, as the frame came) */
	if (e) {
		*wait = c.wait;
		lazy_unreserve(sp, pg);
		return e;
	}
	if (r.shared && (pa = fshare_add(r.ino, off / PGSIZE, V2P(pg))) != V2P(pg)) {
		page_free(pg);          /* (one entered meanwhile: that one) */
		pg = P2V(pa);
	}
	return install(sp, va, err, &r, pg);
}

/* A user page fault at va: 1 if handled (the access runs again, or the
   thread blocked until the block is in), 0 if va is not a file page. */
int fmap_fault(struct trapframe *tf, uint64_t va, uint64_t err)
{
	struct space *sp = myvp()->space;
	struct buf *b = 0;
	if (err & PF_P)
		return 0;               /* protection, not absence */
	long r = fill(sp, va, err, &b);
	if (r == -EBWAIT) {
		/* 1 (ended meanwhile), 0 (the thread blocked), -EAGAIN (the
		   space's kop quota: touch again, the read is on its way) or
		   -EINTR (the space is ending): the access runs again in each. */
		if (b)
			disk_wait_as(b, BLK_FPAGE, tf);
		return 1;
	}
	static const struct fault_kill past = { .cause = "past the end of a mapped file", .detail = "file page" };
	struct fault_kill k = past;
	k.addr = va;
	k.rip = tf->rip;
	if (r == -ENXIO && fault_signal(tf, 7, 2, va, &k))
		return 1;               /* SIGBUS, BUS_ADRERR: the space catches it (fault.c) */
	if (r < 0)
		space_kill(sp, r == -ENOMEM ? "out of memory" : r == -ENXIO ? "past the end of a mapped file" :
			   "I/O error", va, tf->rip, "file page");
	return r != 0;
}

/* The kernel touches va on the user's behalf (a system call's copy):
   map it if its blocks are cached (1), else 0 (the reads are started,
   the copy fails -EFAULT, and the buffer to wait for is noted in the VP:
   a file call then waits and runs again, fmap_copy_wait) or -ENOMEM. */
int fmap_fill(struct space *sp, uint64_t va, uint64_t err)
{
	struct buf *b = 0;
	long r = fill(sp, va, err, &b);
	if (r == -EBWAIT && b && myvp()->space == sp)
		myvp()->fmap_wait = b;
	return r == -ENOMEM ? -ENOMEM : r == 1;
}

/* Before a file call's attempt: forget a wait noted by an earlier one. */
void fmap_copy_reset(void)
{
	myvp()->fmap_wait = 0;
}

/* A file call's attempt gave r: if its copy stopped at a file page on
   its way (fmap_fill), failing (-EFAULT) or short of `redo_below` bytes
   (a read, which runs again as a miss in the file does; a write must not:
   an append would append twice), wait for the page's block: 1 run the
   attempt again, 0 the thread blocked (the call runs again), < 0 an
   error; 2 when r stands. */
long fmap_copy_wait(long r, long redo_below)
{
	struct buf *b = myvp()->fmap_wait;
	myvp()->fmap_wait = 0;
	if (!b || (r != -EFAULT && (r <= 0 || r >= redo_below)))
		return 2;
	return disk_wait(b);
}

/* Wait for c's buffer: 1, run the step again; else -EBWAIT (the thread
   blocked: the call runs again from the start) or an error. */
static long again(struct fsctx *c)
{
	long r = disk_wait(c->wait);
	return r > 0 ? 1 : r ? r : -EBWAIT;
}

/* Write the page at va (of region r) to the file: up to its size now. */
static long page_out(struct lazy *r, uint64_t va)
{
	struct fsctx c = { 0 };
	struct inode ip;
	long e;
	uint64_t off = va + (uint64_t)r->fdelta, done = 0, where;
	while ((e = ext2_iget(&c, r->ino, &ip)) == -EBWAIT)
		if ((e = again(&c)) != 1)
			return e;
	if (e || !IS_REG(&ip) || off >= ip.size)
		return e;              /* (truncated or unlinked meanwhile: nothing to write) */
	uint64_t n = MIN(PGSIZE, ip.size - off);
	while (done < n) {
		c = (struct fsctx){ 0 };
		e = ext2_write(&c, r->ino, off + done, va + done, n - done, 0, &where);
		if (e == -EBWAIT && (e = again(&c)) == 1)
			continue;
		if (e <= 0)
			return e ? e : -EIO;
		done += (uint64_t)e;
	}
	return 0;
}

/* The pages of shared file regions in [a, b): a dirty one (D set by the
   CPU) becomes PTE_FDIRTY, D cleared, so a write after this pass sets D
   again. Returns how many are to be written; sp->lock held. */
static uint64_t mark(struct space *sp, uint64_t a, uint64_t b)
{
	uint64_t n = 0;
	for (struct lazy *r; a < b && (r = lazy_first(sp, a, b - a)); a = r->end) {
		if (!r->ino || !r->shared)
			continue;
		uint64_t *pte, va = MAX(a, r->start);
		for (; (pte = vm_next(sp->pml4, &va, MIN(b, r->end))); va += PGSIZE) {   /* (mapped pages only) */
			if ((*pte & PTE_P) && (*pte & (PTE_D | PTE_FDIRTY))) {
				*pte = (*pte & ~PTE_D) | PTE_FDIRTY;
				n++;
			}
		}
	}
	return n;
}

/* The first address from va below end in a shared file region, or end;
   sp->lock held. */
static uint64_t next_shared(struct space *sp, uint64_t va, uint64_t end)
{
	for (struct lazy *r; va < end && (r = lazy_first(sp, va, end - va)); va = r->end)
		if (r->ino && r->shared)
			return MAX(va, r->start);
	return end;
}

/*
 * Write back the dirty pages of sp's shared file mappings in [addr,
 * addr+len) (msync, unmap): 0, the first error, or -EBWAIT when the
 * thread blocked (the call runs again: the pages not yet written keep
 * PTE_FDIRTY, so none is lost and none written twice in a row).
 */
long fmap_flush(uint64_t addr, uint64_t len)
{
	struct space *sp = myvp()->space;
	uint64_t end = addr + len;
	spin_lock(&sp->lock);
	uint64_t n = mark(sp, addr, end);
	spin_unlock(&sp->lock);
	if (!n)
		return 0;
	tlb_shootdown(sp);           /* no CPU keeps a D it could skip setting */
	long err = 0;
	for (uint64_t va = addr; va < end && n; va += PGSIZE) {
		struct lazy r;
		spin_lock(&sp->lock);
		/* A step per region and per mapped page: the range may be huge. */
		va = next_shared(sp, va, end);
		struct lazy *g = va < end ? lazy_region(sp, va) : 0;
		uint64_t stop = g ? MIN(end, g->end) : end, *pte = g ? vm_next(sp->pml4, &va, stop) : 0;
		int todo = pte && (*pte & PTE_FDIRTY) && region(sp, va, 0, &r) && r.shared;
		if (!pte)
			va = stop - PGSIZE;              /* (none in this region: the next one) */
		spin_unlock(&sp->lock);
		if (!todo)
			continue;
		n--;
		long e = page_out(&r, va);
		if (e == -EBWAIT)
			return e;
		err = err ? err : e;
		spin_lock(&sp->lock);
		if ((pte = vm_walk(sp->pml4, va, 0)))
			*pte &= ~PTE_FDIRTY;     /* (written, or failed: reported once) */
		spin_unlock(&sp->lock);
	}
	return err;
}

static long fmap_checked(uint64_t addr, uint64_t len, uint64_t prot, uint64_t flags, uint32_t ino, int fl,
			 uint64_t off);

/* (addr or 0, len, prot, FMAP_* flags, fd, offset) */
long sys_fmap(uint64_t addr, uint64_t len, uint64_t prot, uint64_t flags, uint64_t fd, uint64_t off)
{
	struct space *sp = myvp()->space;
	uint32_t ino;
	int fl;
	long r = file_map_info(sp, fd, &ino, &fl);
	if (r)
		return r;
	r = fmap_checked(addr, len, prot, flags, ino, fl, off);
	ino_drop(ino);          /* (file_map_info's hold: the region took its own, lazy.c) */
	return r;
}

static long fmap_checked(uint64_t addr, uint64_t len, uint64_t prot, uint64_t flags, uint32_t ino, int fl,
			 uint64_t off)
{
	if (!len || addr % PGSIZE || off % PGSIZE || (int64_t)off < 0 || len > USER_TOP ||
	    (prot & ~(uint64_t)(PROT_READ | PROT_WRITE | PROT_EXEC)) || (flags & ~(uint64_t)FMAP_SHARED) ||
	    off + PGROUNDUP(len) < off)
		return -EINVAL;
	int acc = fl & FO_ACCMODE;         /* (O_WRONLY 1, O_RDWR 2) */
	if (acc == 1 || ((flags & FMAP_SHARED) && (prot & PROT_WRITE) && acc != 2))
		return -EACCES;
	/* Shared through a descriptor not open for writing: the frames are
	   shared all the same (others' stores show), but no store may ever
	   reach them: protect refuses write access there, as Linux does. */
	int shared = !(flags & FMAP_SHARED) ? 0 : acc == 2 ? LAZY_SHARED : LAZY_SHARED_RO;
	return map_file(addr, PGROUNDUP(len), prot, ino, shared, off);
}

/* (addr, len, MSYNC_* flags) */
long sys_msync(uint64_t addr, uint64_t len, uint64_t flags, uint64_t a3, uint64_t a4, uint64_t a5)
{
	(void)a3, (void)a4, (void)a5;
	if (addr % PGSIZE || (flags & ~(uint64_t)MSYNC_WAIT) || len > USER_TOP ||
	    !user_range_ok(addr, PGROUNDUP(len)))
		return -EINVAL;
	long r = fmap_flush(addr, PGROUNDUP(len));
	while (!r && (flags & MSYNC_WAIT)) {     /* as fsync: the cache to the disk */
		struct buf *b;
		if ((r = bcache_sync_step(&b)) != BWAIT)
			break;
		if ((r = disk_wait(b)) > 0)
			r = 0;
		else if (!r)
			return 0;            /* the thread blocked: the call runs again */
	}
	return r == -EBWAIT ? 0 : r;
}
