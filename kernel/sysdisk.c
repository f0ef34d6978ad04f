/*
 * SYS_disk: the raw disk in 4 KiB blocks, through the block cache. For
 * tests and measurements of the driver, not for programs: it is allowed
 * only when the command line says `rawdisk` (-EPERM otherwise), since any
 * space could read or overwrite anything on the disk with it.
 *
 * A block the cache must fetch (or a buffer still on its way out) is
 * waited for as a kop of kind BLK_DISK keyed by the buffer: with upcalls
 * the thread blocks (EV_BLOCKED) and its EV_UNBLOCKED context is the
 * syscall instruction again, so the call simply runs once more and finds
 * the block; a classic VP blocks and the call loops here. The wait ends
 * at the latest when the request is overdue, and the call then gives -EIO.
 */
#include "kernel.h"
#include "disk.h"
#include <anima/syscall.h>
#include <anima/vp.h>

int rawdisk;

/* Wait for b's request to end. 1: ask again; 0: the thread blocked with
   an upcall (return at once: the call runs again on EV_UNBLOCKED); < 0:
   an error (-EAGAIN: too many blocked; -EINTR: the space is ending).
   Also the file calls' wait (sysfile.c). */
long disk_wait(struct buf *b)
{
	return disk_wait_as(b, BLK_DISK, myvp()->tf);
}

/* The same for a blocking operation of `kind` on the context tf (a page
   fault's is BLK_FPAGE, fmap.c). */
long disk_wait_as(struct buf *b, int kind, struct trapframe *tf)
{
	struct kop *op = kop_alloc(kind);
	if (!op)
		return -EAGAIN;
	op->result = 1;                       /* what the deadline gives: ask again */
	bcache_pin(b);                        /* keep the block for this waiter's call */
	spin_lock(&kop_lock);
	int busy = b->state == B_READING || b->state == B_WRITING;
	if (!busy) {                          /* it ended before we got here */
		spin_unlock(&kop_lock);
		kop_free(op);
		return 1;
	}
	op->fkey = DISKKEY_TAG | (uint64_t)b->index;
	op->wake_ns = b->start_ns + DISK_TIMEOUT_NS + 1;
	return kop_wait(op, tf);
}

static long disk_rw(uint64_t block, uint64_t ubuf, int write)
{
	if (block >= disk_blocks)
		return -EINVAL;
	if (!user_range_ok(ubuf, BSIZE))
		return -EFAULT;
	for (;;) {
		struct buf *b;
		long r = write ? bcache_write(block, &b) : bcache_read(block, &b);
		if (r == 0) {
			r = write ? copyin(b->data, ubuf, BSIZE) : copyout(ubuf, b->data, BSIZE);
			bcache_put(b);
			return r;
		}
		if (r != BWAIT)
			return r;
		if ((r = disk_wait(b)) <= 0)
			return r;
	}
}

/* Every dirty block to the disk (the sync and fsync calls): 0, an
   error, or 0 when the thread blocked (the call runs again). */
long disk_sync(void)
{
	for (;;) {
		struct buf *b;
		long r = bcache_sync_step(&b);
		if (r != BWAIT)
			return r;
		if ((r = disk_wait(b)) <= 0)
			return r;
	}
}

/* (op, block, buf): see DISK_* in <anima/syscall.h>. */
long sys_disk(uint64_t op, uint64_t block, uint64_t buf, uint64_t a3, uint64_t a4, uint64_t a5)
{
	(void)a3; (void)a4; (void)a5;
	if (!rawdisk)
		return -EPERM;
	if (!disk_blocks)
		return -ENODEV;
	switch (op) {
	case DISK_READ:
		return disk_rw(block, buf, 0);
	case DISK_WRITE:
		return disk_rw(block, buf, 1);
	case DISK_SYNC:
		return disk_sync();
	case DISK_INFO: {
		uint64_t info[2] = { disk_blocks, (uint64_t)disk_maxflight };
		return user_range_ok(buf, sizeof info) ? copyout(buf, info, sizeof info) : -EFAULT;
	}
	}
	return -EINVAL;
}
