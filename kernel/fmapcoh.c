/*
 * File calls and the caller's own file mappings (fmap.c): a mapped page
 * is the space's copy, so without this a read() of a range missed the
 * stores the space made through a shared map until msync, and a write()
 * or ftruncate left the space's mapped pages with the old bytes. Here,
 * for the calling space only:
 *
 *   before a read/pread of inode I: its dirty shared pages of I over the
 *   range are written back (fmap_flush, which may block: the call then
 *   runs again, the pages not yet written still marked);
 *   before a write/pwrite/ftruncate: the same, so that a write-back
 *   later cannot put a page's old bytes over the new ones;
 *   after it: its shared pages of I over the range that the program has
 *   not stored to since that write-back (D and PTE_FDIRTY clear) are
 *   unmapped, their frames freed after the TLB shootdown, so the next
 *   touch reads the file.
 *
 * Private mappings are left alone: whether the program stored to a page
 * cannot be told from its D bit (fork clears it in the child, whose copy
 * may hold the parent's stores), and POSIX leaves it unspecified whether
 * they see later writes to the file. A page under PROT_NONE keeps the
 * old bytes. Other spaces' shared pages of I are the same frames as
 * the caller's (fshare.c), which the file calls read and write directly.
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

/* The next shared region of sp from index *i mapping inode ino, with
   the pages [*va, *vb) over file bytes [off, end): 1, or 0 when none is
   left. Takes sp->lock for the look (the region list may change between
   two looks: *i only moves on). */
static int next(struct space *sp, int *i, uint32_t ino, uint64_t off, uint64_t end,
		uint64_t *va, uint64_t *vb)
{
	spin_lock(&sp->lock);
	int more = 0;
	for (; *i < sp->nlazy; (*i)++) {
		struct lazy *r = &sp->lazy[*i];
		uint64_t fs = r->start + (uint64_t)r->fdelta, fe = r->end + (uint64_t)r->fdelta;
		if (r->ino != ino || !r->shared || fe <= off || fs >= end)
			continue;
		*va = PGROUNDDOWN(MAX(fs, off) - (uint64_t)r->fdelta);
		*vb = MIN(r->end, PGROUNDUP(MIN(fe, end) - (uint64_t)r->fdelta));
		(*i)++;
		more = 1;
		break;
	}
	spin_unlock(&sp->lock);
	return more;
}

/* The end of file bytes [off, off+len), saturated. */
static uint64_t fend(uint64_t off, uint64_t len)
{
	return off + len < off ? ~0UL : off + len;
}

/* Write back the caller's dirty shared pages of ino over file bytes
   [off, off+len): 0, or -EBWAIT when the thread blocked (the call runs
   again). A page that fails to write is reported by neither msync nor
   this call (fmap_flush clears its mark): the file call goes on. */
long fmap_file_flush(uint32_t ino, uint64_t off, uint64_t len)
{
	struct space *sp = myvp()->space;
	uint64_t end = fend(off, len), va, vb;
	for (int i = 0;;) {
		if (!next(sp, &i, ino, off, end, &va, &vb))
			return 0;
		if (va < vb && fmap_flush(va, vb - va) == -EBWAIT)
			return -EBWAIT;
	}
}

/* Unmap the pages of [*va, vb) in a shared region of ino the program
   has not stored to, into b until it is full; *va advances. sp->lock held. */
static int collect(struct space *sp, uint32_t ino, uint64_t *va, uint64_t vb, struct frame_batch *b)
{
	uint64_t *pte;
	for (; (pte = vm_next(sp->pml4, va, vb)); *va += PGSIZE) {
		uint64_t v = *pte;
		struct lazy *r = lazy_region(sp, *va);
		if (!r || r->ino != ino || !r->shared || !(v & PTE_P) ||
		    (v & (PTE_KERNEL | PTE_SHARED | PTE_D | PTE_FDIRTY)))
			continue;
		if (b->n == NELEM(b->pa))
			return 0;
		/* (a CPU setting D now makes the exchange fail: the page stays) */
		if (__atomic_compare_exchange_n(pte, &v, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
			b->pa[b->n++] = v & PTE_ADDR;
			sp->pages--;
		}
	}
	return 1;
}

/* After the caller wrote or truncated ino over file bytes [off,
   off+len): drop its shared pages there that still hold the file's old
   bytes (see the top). Holds no spin lock on entry. */
void fmap_file_drop(uint32_t ino, uint64_t off, uint64_t len)
{
	struct space *sp = myvp()->space;
	uint64_t end = fend(off, len), va, vb;
	for (int i = 0;;) {
		if (!next(sp, &i, ino, off, end, &va, &vb))
			return;
		for (int done = 0; !done;) {
			struct frame_batch b = { .n = 0 };
			spin_lock(&sp->lock);
			done = collect(sp, ino, &va, vb, &b);
			spin_unlock(&sp->lock);
			shake();         /* unmapped, other CPUs' TLBs may still hold the frames */
			if (!b.n)
				break;
			tlb_shootdown(sp);      /* no CPU still reaches a frame we free */
			for (int k = 0; k < b.n; k++)
				frame_put(b.pa[k]);
		}
	}
}
