/*
 * Futexes on words in MAP_SHARED file pages (fshare.c): process-shared
 * pthread objects in a shm_open'd or file mapping wait and wake across
 * spaces.
 *
 * The key. A private word is keyed by its address (vpsys.c, futex_key)
 * and a wake reaches only the waker's space. A shared file
 * page is one frame for every space that maps it (fshare.c), so its frame
 * names the memory itself; its key is FSHKEY_TAG | frame + offset and a
 * wake reaches every space's waiters on it. Why the frame rather than
 * (inode, offset), as Linux keys a shared futex: here a mapping names its
 * inode by number only, and an unlinked file's number is reused while its
 * old frames are still mapped (fshare.c drops them from the table, their
 * holders keep them). (inode, offset) would then make a waiter on the old
 * file's frame and one on the new file's meet: a wake(1) could go to the
 * wrong object and the right waiter miss it. Two spaces see the same
 * frame exactly when they see the same bytes, so the frame never wakes
 * the wrong object.
 *
 * The pin. The frame must stay that memory while anyone waits on it: a
 * waiter's space may unmap the page (another thread) while it sleeps,
 * and if the last holder went the frame would be freed and reused. So a
 * waiter on a shared key holds the frame (one more holder, cow.c's
 * count) from the moment it queues until its kop is freed (completed,
 * cancelled, its VP or space gone: kop_free). While held, the frame stays
 * the (inode, page)'s in fshare's table, so a space that maps the page
 * afterwards meets the waiters too; the table keeps no frame only once
 * nobody waits. Bounded: one pin per kop, MAXKOP_SPACE per space, each
 * charged to the waiter's space as a page (kbytes) while held.
 *
 * A frame fshare no longer tracks (a truncation took it out, or the
 * table was full when it was read) is keyed as a private one: each space
 * then has its own copy of the page anyway, or soon will.
 *
 * Off the fast path: only a space that has ever had a MAP_SHARED file
 * region (sp->fshared, set by map_file, kept by fork) looks whether a
 * futex word's frame is a shared file page; every other space's futex
 * calls key as before.
 */
#include "kernel.h"

/* The futex key of the word at offset off in pa, a shared file page's
   frame (fshare_is). */
uint64_t fkey_of(uint64_t pa, uint64_t off)
{
	return (pa + off) | FSHKEY_TAG;
}

/* Pin the frame of op's shared key for as long as op waits: 0, or
   -EAGAIN if sp maps another frame at uaddr now (the caller looks again)
   or the frame has all the holders it can count. kop_lock held (which
   orders before sp->lock); under sp->lock the PTE still maps the frame,
   so its holders cannot all drop it before our hold is counted. */
long fkey_pin(struct space *sp, uint64_t uaddr, struct kop *op)
{
	uint64_t pa = PGROUNDDOWN(op->fkey & ~FSHKEY_TAG);
	spin_lock(&sp->lock);
	uint64_t *pte = vm_walk(sp->pml4, uaddr, 0);
	int ok = pte && (*pte & PTE_P) && (*pte & PTE_ADDR) == pa && frame_share(pa);
	spin_unlock(&sp->lock);
	if (!ok)
		return -EAGAIN;
	op->fpin = pa;
	__atomic_add_fetch(&sp->kbytes, PGSIZE, __ATOMIC_RELAXED);
	return 0;
}

/* op is being freed: let its pinned frame go (the last holder frees it:
   every PTE of it was cleared and shot down before that holder's put). */
void fkey_unpin(struct kop *op)
{
	uint64_t pa = op->fpin;
	op->fpin = 0;
	__atomic_sub_fetch(&op->sp->kbytes, PGSIZE, __ATOMIC_RELAXED);
	frame_put(pa);
}

/* INFO_FSHARED: is uaddr in a MAP_SHARED file mapping of sp's (1 or 0)?
   So that a process-shared object placed there uses the kernel futex
   (ulib/pthread/pshared.h). */
long fkey_shared_at(struct space *sp, uint64_t uaddr)
{
	spin_lock(&sp->lock);
	struct lazy *r = uaddr < USER_TOP ? lazy_region(sp, uaddr) : 0;
	long yes = r && r->ino && r->shared;
	spin_unlock(&sp->lock);
	return yes;
}
