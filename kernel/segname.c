/*
 * Named segments (SYS_seg_open, SYS_seg_unlink): a system-wide table of
 * names, each naming a shared segment (seg.c), so that processes with no
 * handle in common find the same memory: sem_open's semaphores
 * (ulib/pthread/semname.c). A name holds a handle reference of its own:
 * the segment lives while it is named or some space holds it, and its
 * frames go back once it is unlinked and its last mapping and handle are
 * gone. seg_open gives the caller a handle with SEG_READ | SEG_WRITE |
 * SEG_GRANT (never SEG_REVOKE: no opener may pull it from the others).
 *
 * Who pays: the creator, as for any segment; the charge moves to another
 * holder when it lets go (segpay.c). A named segment no space holds is
 * paid by its last payer while that space lives, and by nobody after:
 * so the table is bounded as a whole, NAMESEG_MAX names and
 * NAMESEG_BYTES bytes of segments, whatever their payers.
 *
 * A name has an owner and permission bits, as the file /dev/shm/sem.NAME
 * has on Linux: its maker's effective ids and the mode it gave. An open
 * of an existing name needs read and write (-EACCES), and, /dev/shm
 * being sticky there, only the owner (or root) may unlink it (Linux's
 * -EPERM, which glibc's sem_unlink makes EACCES: we give -EACCES).
 *
 * Lock order: names_lock, then seg_lock (seg_hold); no space lock is
 * taken under names_lock.
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED(...) (void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5
#define NRIGHTS (SEG_READ | SEG_WRITE | SEG_GRANT)

long sys_seg_create(ARGS);
long sys_cap_drop(ARGS);

struct segname {
	struct seg *s;                   /* 0: free */
	uint32_t uid, gid, mode;         /* its maker's effective ids, its permission bits */
	char name[SEGNAME_MAX];
};

static struct spinlock names_lock = SPINLOCK_INIT("segname");
static struct segname names[NAMESEG_MAX];   /* names_lock */
static uint64_t named_bytes;                  /* names_lock: their segments' lengths */

static struct segname *lookup(const char *name)
{
	for (int i = 0; i < NAMESEG_MAX; i++)
		if (names[i].s && strcmp(names[i].name, name) == 0)
			return &names[i];
	return 0;
}

/* n's owner and bits as a file's, for perm.c's checks (names_lock). */
static struct inode as_file(const struct segname *n)
{
	return (struct inode){ .mode = 0100000 | n->mode, .uid = n->uid, .gid = n->gid };
}

/* A new handle of the caller's to s, whose reference the caller gives. */
static long give(struct space *sp, struct seg *s)
{
	struct capent ce = { .kind = CAP_SEG, .seg = s, .rights = NRIGHTS };
	spin_lock(&sp->lock);
	long h = cap_put(sp, &ce);
	spin_unlock(&sp->lock);
	if (h < 0)
		seg_release(s, 1);
	return h;
}

/* Make a segment of len bytes in the caller's table, narrowed: its
   handle and *s, or -errno. */
static long create(struct space *sp, uint64_t len, struct seg **s)
{
	long h = sys_seg_create(len, 0, 0, 0, 0, 0);
	if (h < 0)
		return h;
	spin_lock(&sp->lock);
	struct capent *e = &sp->caps[h - CAP_BASE];
	e->rights = NRIGHTS;
	*s = e->seg;                     /* (alive: the handle holds it) */
	spin_unlock(&sp->lock);
	return h;
}

/* SYS_seg_open(name, len, SEGN_* flags, mode) -> a handle to the segment
   of that name; with SEGN_CREAT a new zeroed one of len bytes if there is
   none (-EEXIST with SEGN_EXCL if there is), owned by the caller, with
   mode's permission bits (SEGN_MODE; else 0666). An existing one needs
   read and write permission (-EACCES). -ENOENT, -ENOSPC (table
   full or NAMESEG_BYTES reached), -EINVAL (a name empty or too long), or
   seg_create's errors. An existing segment keeps its length
   (SYS_seg_info tells it). */
long sys_seg_open(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	char name[SEGNAME_MAX];
	long r = copyin_str(name, a0, sizeof name);
	if (r < 0)
		return r;
	if (!r || (a2 & ~(uint64_t)(SEGN_CREAT | SEGN_EXCL | SEGN_MODE)))
		return -EINVAL;
	int creat = a2 & SEGN_CREAT, excl = creat && (a2 & SEGN_EXCL);
	uint32_t mode = a2 & SEGN_MODE ? (uint32_t)a3 & 0777 : 0666;
	struct seg *mine = 0;
	long h = -1;
	for (;;) {
		spin_lock(&names_lock);
		struct segname *n = lookup(name);
		struct seg *s = n ? n->s : 0;
		struct inode own = n ? as_file(n) : (struct inode){ 0 };
		long deny = s && !excl && !perm_ok(&own, 6) ? -EACCES : 0;
		if (s && !excl && !deny)
			seg_hold(s);
		if (!s && mine) {        /* ours goes in, unless there is no room */
			struct segname *f = 0;
			for (int i = 0; !f && i < NAMESEG_MAX; i++)
				if (!names[i].s)
					f = &names[i];
			r = 0;
			if (!f || named_bytes + mine->len > NAMESEG_BYTES) {
				r = -ENOSPC;
			} else {
				seg_hold(mine);  /* the name's reference */
				f->s = mine;
				f->uid = perm_uid();
				f->gid = perm_gid();
				f->mode = mode;
				memcpy(f->name, name, sizeof name);
				named_bytes += mine->len;
			}
		}
		spin_unlock(&names_lock);
		if (mine) {
			if (!s && !r)
				return h;
			sys_cap_drop(h, 0, 0, 0, 0, 0);   /* lost a race, or no room */
			if (r < 0)
				return r;
		}
		if (deny)
			return deny;
		if (s)
			return excl ? -EEXIST : give(sp, s);
		if (!creat)
			return -ENOENT;
		if ((h = create(sp, a1, &mine)) < 0)
			return h;
	}
}

/* SYS_seg_unlink(name) -> 0: the name is gone (-ENOENT if there was
   none; -EACCES if the caller neither owns it nor is root); the segment
   stays for those that hold it. */
long sys_seg_unlink(ARGS)
{
	UNUSED();
	char name[SEGNAME_MAX];
	long r = copyin_str(name, a0, sizeof name);
	if (r <= 0)
		return r < 0 ? r : -EINVAL;
	spin_lock(&names_lock);
	struct segname *n = lookup(name);
	struct inode own = n ? as_file(n) : (struct inode){ 0 };
	if (n && !perm_owner(&own)) {
		spin_unlock(&names_lock);
		return -EACCES;
	}
	struct seg *s = n ? n->s : 0;
	if (n) {
		named_bytes -= s->len;
		n->s = 0;
	}
	spin_unlock(&names_lock);
	if (!s)
		return -ENOENT;
	seg_release(s, 1);
	return 0;
}
