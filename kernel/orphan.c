/*
 * Open counts of inodes, and orphans: an unlinked file that is still
 * open or mapped lives on until its last holder lets go (POSIX), as in
 * `fd = shm_open(..); mmap(..); shm_unlink(..)` or `mkstemp(); unlink()`.
 *
 * A holder is an open file of the disk (sysfile.c: one hold for the
 * open file, however many descriptors or spaces name it) or a file
 * mapping's region (lazy.c, protect.c, fork.c: one hold per region, a
 * split or a fork's copy takes one more). The table has an entry per
 * held inode, made by the open that first holds it (-ENOMEM there, in
 * a call that can fail); a region is always made from a held file, so
 * its hold only counts (ino_hold). Entries are kernel heap, not
 * charged: each is there for an open file or a region that is charged
 * to its space, so they are as bounded as those (docs/security.md).
 *
 * When unlink, rmdir or rename takes a held inode's last link (ext2w.c),
 * the entry is marked an orphan and the inode keeps its blocks, its
 * bitmap bit and so its number. When its last hold goes (a close, an
 * unmap, a space's end, which may come in an interrupt-free teardown)
 * nothing is freed there: the orphan is counted as due, and the next
 * file call of any space (open, close, read, write, stat, unlink,
 * rename, fsync: orphan_reap at its start, where waiting for the disk
 * is allowed and the call runs again after it) frees its blocks and
 * the inode (ext2_reap); close tries at once without waiting. The halt
 * frees every orphan, whoever still holds it (orphan_halt), so the image
 * left behind is clean (e2fsck -fn). Each orphan is also in the on-disk
 * orphan list (ext2orph.c), so a crash leaves them named: the first file
 * calls after the next mount (orphan_reap) walk the list the mount found
 * and free each inode in it as a due orphan (recover).
 *
 * Lock order: ino_lock is taken under a space's lock and under ext2w.c's
 * fslock, and takes nothing but the kernel heap's.
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

#define NBUCKET 256

struct ient {
	uint32_t ino;
	int holds;               /* open files and regions naming it */
	int orphan;              /* no link is left: free it when holds is 0 */
	int busy;                /* being freed (ext2_reap) */
	struct ient *next;
};

static struct spinlock ino_lock = SPINLOCK_INIT("orphan");
static struct ient *bucket[NBUCKET];     /* ino_lock */
static int ndue;                         /* orphans with no holds left (atomic) */
static long nfreed, norphans, nfound;    /* since boot (ino_lock): INFO_ORPHAN */

/* The walk of the on-disk list a crash left (ino_lock): */
static int rstate;                       /* 0 not begun, 1 walking, 2 done */
static int rbusy;                        /* a CPU reads rnext's inode now */
static uint32_t rnext;                   /* the next inode of it to free; 0: the end */
static uint32_t rsteps;                  /* inodes taken from it (bounded by the inode count) */

static struct ient **slot(uint32_t ino)
{
	struct ient **p = &bucket[ino % NBUCKET];
	while (*p && (*p)->ino != ino)
		p = &(*p)->next;
	return p;
}

/* A new open file of ino holds it: 0, or -ENOMEM. */
long ino_open(uint32_t ino)
{
	struct ient *n = kzalloc(sizeof *n);
	spin_lock(&ino_lock);
	struct ient **p = slot(ino);
	if (*p)
		(*p)->holds++;
	else if (n) {
		n->ino = ino;
		n->holds = 1;
		*p = n;
		n = 0;
	}
	long r = *p ? 0 : -ENOMEM;
	spin_unlock(&ino_lock);
	kfree(n);
	return r;
}

/* One more hold of ino, which something the caller holds holds already. */
void ino_hold(uint32_t ino)
{
	spin_lock(&ino_lock);
	struct ient *e = *slot(ino);
	if (!e)
		panic("ino_hold: inode %u is not held", ino);
	e->holds++;
	spin_unlock(&ino_lock);
}

/* A hold of ino goes. Its last: the entry goes, or an orphan is due. */
void ino_drop(uint32_t ino)
{
	spin_lock(&ino_lock);
	struct ient **p = slot(ino), *e = *p, *gone = 0;
	if (!e || e->holds <= 0)
		panic("ino_drop: inode %u is not held", ino);
	if (--e->holds == 0 && e->orphan && e->busy != 2)
		__atomic_add_fetch(&ndue, 1, __ATOMIC_RELEASE);
	else if (e->holds == 0)
		*p = e->next, gone = e;
	spin_unlock(&ino_lock);
	kfree(gone);
}

/* The holds of the file regions among r[0..n): taken (d 1) or let go. */
void ino_regions(const struct lazy *r, int n, int d)
{
	for (int i = 0; i < n; i++)
		if (r[i].ino)
			d > 0 ? ino_hold(r[i].ino) : ino_drop(r[i].ino);
}

/* Is ino held now, or an orphan (its writes are allowed)? */
int ino_held(uint32_t ino)
{
	spin_lock(&ino_lock);
	int r = *slot(ino) != 0;
	spin_unlock(&ino_lock);
	return r;
}

/*
 * ext2w.c, in the step that takes ino's last link (fslock held), before
 * it changes anything: 1 if ino becomes an orphan (held now, or `keep`:
 * the step left its blocks, since it was held when they were to go), 0
 * if the step frees it now, -ENOMEM (a kept one with no entry).
 */
int ino_orphan(uint32_t ino, int keep)
{
	struct ient *n = keep ? kzalloc(sizeof *n) : 0;
	spin_lock(&ino_lock);
	struct ient **p = slot(ino), *e = *p;
	int r = 1;
	if (!e && n) {
		n->ino = ino;
		*p = e = n;
		n = 0;
	}
	if (e && !e->orphan) {
		e->orphan = 1;
		norphans++;
		if (!e->holds)
			__atomic_add_fetch(&ndue, 1, __ATOMIC_RELEASE);
	}
	if (!e)
		r = keep ? -ENOMEM : 0;
	spin_unlock(&ino_lock);
	kfree(n);
	return r;
}

/* Wait as `how` says for the buffer c waits for: 1 when it is in (run
   the step again); -EBWAIT when the thread blocked (the system call
   runs again) or, FSW_NOWAIT, when not waited for; -EAGAIN when it
   could not wait now (disk_wait's -EAGAIN, -EINTR: try another time);
   -EIO at the halt. */
long fs_wait(struct fsctx *c, int how)
{
	struct buf *b = c->wait;
	if (how == FSW_WAIT) {
		long r = disk_wait(b);
		return r == 0 ? -EBWAIT : r < 0 ? -EAGAIN : r;
	}
	if (how != FSW_HALT)
		return -EBWAIT;
	uint64_t end = now_ns() + DISK_TIMEOUT_NS;     /* (interrupts may be off: poll) */
	while ((__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) == B_READING ||
		__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) == B_WRITING) && now_ns() < end)
		blk_intr();
	return now_ns() < end ? 1 : -EIO;
}

/* The next due orphan (all of them at the halt), claimed; or 0. */
static struct ient *claim(int all)
{
	struct ient *e = 0;
	spin_lock(&ino_lock);
	for (int i = 0; i < NBUCKET && !e; i++)
		for (e = bucket[i]; e && !(e->orphan == 1 && !e->busy && (all || !e->holds)); e = e->next)
			;
	if (e)
		e->busy = 1;
	spin_unlock(&ino_lock);
	return e;
}

/* Free e's inode: 0 when freed (ino_reaped) or left for e2fsck (the
   disk or the image failed: the entry stays, not due); -EBWAIT (the
   thread blocked) or -EAGAIN (not now): it stays due. */
static long reap(struct ient *e, int how)
{
	struct fsctx c;
	long r;
	for (;;) {
		c = (struct fsctx){ 0 };
		if ((r = ext2_reap(&c, e->ino)) != -EBWAIT || (r = fs_wait(&c, how)) != 1)
			break;
	}
	shake();                         /* (freed: its number may be given out again) */
	if (!r)
		return 0;                        /* (ino_reaped let e go, under fslock) */
	spin_lock(&ino_lock);
	e->busy = 0;
	if (r != -EBWAIT && r != -EAGAIN) {
		e->busy = 2;                     /* failed: never claimed again */
		if (!e->holds)
			__atomic_sub_fetch(&ndue, 1, __ATOMIC_RELEASE);
	}
	spin_unlock(&ino_lock);
	return r == -EBWAIT || r == -EAGAIN ? r : 0;
}

/*
 * ext2_reap, in the step that frees ino (fslock held): its claimed entry
 * goes (at the halt one still held stays, no longer an orphan). Done
 * before fslock is let go, since the next file made may get the same
 * inode number: its open would otherwise find this entry and add a hold
 * to it, its unlink find it an orphan already (not counted, and after
 * that no orphan at all: never freed).
 */
void ino_reaped(uint32_t ino)
{
	spin_lock(&ino_lock);
	struct ient **p = slot(ino), *e = *p, *gone = 0;
	if (!e || e->busy != 1)
		panic("ino_reaped: inode %u is not claimed", ino);
	e->busy = e->orphan = 0;
	if (!e->holds) {
		__atomic_sub_fetch(&ndue, 1, __ATOMIC_RELEASE);
		*p = e->next, gone = e;
	}
	nfreed++;
	spin_unlock(&ino_lock);
	kfree(gone);
}

/* Run ext2 call `call` on c, waiting as `how` says, until it needs no block. */
#define FSRUN(call, how) ({                                                 \
	long _r;                                                            \
	for (;;) {                                                          \
		c = (struct fsctx){ 0 };                                    \
		if ((_r = (call)) != -EBWAIT || (_r = fs_wait(&c, how)) != 1) \
			break;                                              \
	}                                                                   \
	_r; })

/* The walk is over: `bad`, damage or no memory (the rest of the list is
   left for e2fsck). ino_lock held. */
static void recover_end(int bad)
{
	static int told;
	rstate = 2;
	if (bad && !told++)
		kprintf("@warn {\"what\": \"orphan list at mount left for e2fsck\", \"at\": %u}\n", rnext);
}

/*
 * The next inode of the orphan list the mount found (what a crash left:
 * ext2orph.c), made a due orphan and freed: 1 (another may follow), 0
 * (the list is done, or another CPU reads it now), or reap's -EBWAIT,
 * -EAGAIN. The first call mounts the file system.
 */
static long recover(int how)
{
	struct fsctx c;
	long r = 0;
	if (!__atomic_load_n(&fs.mounted, __ATOMIC_ACQUIRE) && (r = FSRUN(ext2_mount(&c), how)))
		return r == -EBWAIT || r == -EAGAIN ? r : 0;   /* (no ext2 here: nothing to walk) */
	spin_lock(&ino_lock);
	int go = rstate != 2 && !rbusy;
	if (go && !rstate)
		rstate = 1, rnext = fs.orphans;
	if (go && !rnext)
		recover_end(0), go = 0;
	rbusy = go;
	uint32_t at = rnext, next = 0;
	spin_unlock(&ino_lock);
	if (!go)
		return 0;
	r = FSRUN(ext2_orphan_next(&c, at, &next), how);
	struct ient *e = r ? 0 : kzalloc(sizeof *e);
	int again = r == -EBWAIT || r == -EAGAIN, made = 0;
	spin_lock(&ino_lock);
	rbusy = 0;
	if (!again && (!e || *slot(at) || ++rsteps > fs.ninodes)) {
		recover_end(1);
	} else if (!again) {
		e->ino = at;
		e->orphan = e->busy = 1;         /* (claimed: freed below) */
		e->next = bucket[at % NBUCKET];
		bucket[at % NBUCKET] = e;
		__atomic_add_fetch(&ndue, 1, __ATOMIC_RELEASE);
		nfound++;
		made = 1;
		if (!(rnext = next))
			recover_end(0);
	}
	spin_unlock(&ino_lock);
	if (!made) {
		kfree(e);
		return again ? r : 0;
	}
	return (r = reap(e, how)) ? r : 1;
}

/*
 * At the start of a file call (how FSW_WAIT) or after a close (FSW_NOWAIT):
 * write back shared file pages whose last holder left stores in them
 * (fshare.c), then free every due orphan. 0 (done, or the rest left for
 * another call: the caller goes on), or -EBWAIT when the thread blocked
 * (FSW_WAIT: the call returns at once and runs again).
 */
long orphan_reap(int how)
{
	long r = fshare_flush(how), k = 1;
	struct ient *e;
	while (!r && k > 0 && __atomic_load_n(&rstate, __ATOMIC_ACQUIRE) != 2)
		r = (k = recover(how)) < 0 ? k : 0;
	while (!r && __atomic_load_n(&ndue, __ATOMIC_ACQUIRE) > 0 && (e = claim(0)))
		r = reap(e, how);
	return r == -EBWAIT && how == FSW_WAIT ? -EBWAIT : 0;
}

/* The halt (kernel_finish): every space is gone, or going; every
   orphan is freed and every stored shared page written, polling the
   disk. */
void orphan_halt(void)
{
	struct ient *e;
	fshare_flush(FSW_HALT);
	while (__atomic_load_n(&fs.mounted, __ATOMIC_ACQUIRE) && recover(FSW_HALT) > 0)
		;                        /* (a crash's orphans too, if the disk was used) */
	while ((e = claim(1)))
		if (reap(e, FSW_HALT))
			break;
}

/* INFO_ORPHAN: (0) orphans now, (1) made since boot, (2) freed since boot,
   (3) found in the on-disk list at mount (a crash's; freed among (2)). */
long orphan_info(uint64_t what)
{
	long n = 0;
	spin_lock(&ino_lock);
	for (int i = 0; i < NBUCKET; i++)
		for (struct ient *e = bucket[i]; e; e = e->next)
			n += e->orphan;
	long r = what == 0 ? n : what == 1 ? norphans : what == 2 ? nfreed : what == 3 ? nfound : -EINVAL;
	spin_unlock(&ino_lock);
	return r;
}
