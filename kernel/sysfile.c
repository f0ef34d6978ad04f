/*
 * File descriptors and the file calls over ext2 (read side): open, read,
 * pread, lseek, close, fstat, stat, fdup. Each space has one table of
 * up to MAXFILE_SPACE descriptors (1024, Linux's RLIMIT_NOFILE), shared
 * by its VPs, made at its first open with room for 64 and doubled when
 * full (most spaces hold a few: 576 bytes, not 12 KiB);
 * the table and every open file are kernel heap charged to the space
 * (kzalloc_user: its quota, and the kernel's reserve stays free) and are
 * freed with it (file_space_free). A fork's child gets a reference to
 * each of its parent's open files (file_fork): one open file may be named
 * by several spaces' tables, so its count is atomic, and each space whose
 * table names it is charged for it once, from the first of its
 * descriptors that names it until the last one goes; the memory is freed
 * when the last reference of any space goes.
 *
 * A call that meets a block not in the cache waits for it as a BLK_DISK
 * kop (disk_wait) and then runs again from the start; with upcalls the
 * thread blocks and its EV_UNBLOCKED context is the syscall once more.
 * So a call changes nothing (offset, table) until it has all it needs.
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

struct file {
	int refs;                  /* descriptors naming it, of every table + calls using it (atomic) */
	int flags;                 /* FO_* given to open (access mode, FO_APPEND) */
	uint64_t off;
	struct inode ip;           /* copied at open; calls read it again (fresh) before use */
	uint64_t last, ra;         /* read-ahead: where the last read ended, how far it started */
	int kind;                  /* FK_*: FK_FILE, or not the disk's (a pipe's end, the console, null) */
	struct pipe *pipe;         /* FK_PIPE_R, FK_PIPE_W: the pipe (pipe.c) */
	uint64_t mark;             /* the last pass (first_meet) that met it; under mark_lock */
};

/*
 * Read-ahead. A read() that starts where the previous one ended is taken
 * as sequential: once it gets within half a window of what was started
 * ahead, the next blocks up to a window past its end are started on their
 * way without waiting (ext2_readahead), so the disk works while the
 * program copies. Without it each read found its first block missing,
 * waited for it and the next 15 (ext2_read's prefetch), and the device
 * idled while they were copied. The hints are racy when threads share a
 * descriptor, which costs at most a wasted or a missing start. pread is
 * left alone: it is the random-access call.
 */
#define RA_BLOCKS 64

static void readahead(struct file *f, const struct inode *ip, uint64_t pos, uint64_t end)
{
	uint64_t bs = 1UL << fs.log, at = end / bs;
	uint64_t ra = __atomic_load_n(&f->ra, __ATOMIC_RELAXED);
	int seq = pos == __atomic_load_n(&f->last, __ATOMIC_RELAXED);
	__atomic_store_n(&f->last, end, __ATOMIC_RELAXED);
	if (!seq || at + RA_BLOCKS / 2 < ra)
		return;
	__atomic_store_n(&f->ra, at + RA_BLOCKS, __ATOMIC_RELAXED);
	ext2_readahead(ip, MAX(at, ra), at + RA_BLOCKS - MAX(at, ra));
}

#define FT_FIRST 64                /* descriptors a new table has room for */

struct ftable {
	struct spinlock lock;
	int cap;                       /* descriptors f has room for: FT_FIRST, doubled up to
	                                  MAXFILE_SPACE (grow); f and cap change under lock */
	struct file **f;
	int end;                       /* one past the highest open descriptor: scans stop here */
	int low;                       /* every descriptor below low is open: install starts here */
	int16_t *keep;                 /* the exec that ended the space: its image's descriptor
	                                  i is our keep[i] (-1: none); made by the first exec
	                                  that keeps any (file_exec_check), file_exec_move */
};

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED() ((void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5)

/* The space's table; made if `make` (0 if memory is refused). */
static struct ftable *ftab(struct space *sp, int make)
{
	struct ftable *t = __atomic_load_n(&sp->files, __ATOMIC_ACQUIRE);
	if (t || !make)
		return t;
	struct ftable *n = kzalloc_user(sp, sizeof *n);
	struct file **f = n ? kzalloc_user(sp, FT_FIRST * sizeof *f) : 0;
	if (!f) {
		if (n)
			kfree_user(sp, n, sizeof *n);
		return 0;
	}
	spin_init(&n->lock, "ftable");
	n->f = f;
	n->cap = FT_FIRST;
	spin_lock(&sp->lock);
	if (!(t = sp->files))
		__atomic_store_n(&sp->files, t = n, __ATOMIC_RELEASE);
	spin_unlock(&sp->lock);
	if (t != n) {                             /* another VP made it first */
		kfree_user(sp, n->f, FT_FIRST * sizeof *n->f);
		kfree_user(sp, n, sizeof *n);
	}
	return t;
}

/* Make t room for `want` descriptors, doubling it (the new array charged
   to sp, built before t's lock is taken): 0, -EMFILE past MAXFILE_SPACE,
   -ENOMEM. */
static long grow(struct space *sp, struct ftable *t, int want)
{
	if (want > MAXFILE_SPACE)
		return -EMFILE;
	for (;;) {
		spin_lock(&t->lock);
		int cap = t->cap;
		spin_unlock(&t->lock);
		if (cap >= want)
			return 0;
		int nc = cap;
		while (nc < want)
			nc *= 2;
		struct file **n = kzalloc_user(sp, (size_t)nc * sizeof *n), **old = 0;
		if (!n)
			return -ENOMEM;
		spin_lock(&t->lock);
		if (t->cap == cap) {             /* (else another VP grew it: look again) */
			memcpy(n, t->f, (size_t)cap * sizeof *n);
			old = t->f;
			t->f = n;
			t->cap = nc;
		}
		spin_unlock(&t->lock);
		if (old)
			kfree_user(sp, old, (size_t)cap * sizeof *old);
		else
			kfree_user(sp, n, (size_t)nc * sizeof *n);
	}
}

/* Slot i of t now names f (0: closed); t's lock held, or t is not yet
   shared (a fork's child, an exec's image). end and low follow, each
   step amortized against the install that filled the slot. */
static void set_slot(struct ftable *t, int i, struct file *f)
{
	t->f[i] = f;
	if (f && i >= t->end)
		t->end = i + 1;
	while (f && t->low < t->end && t->f[t->low])
		t->low++;
	if (!f && i < t->low)
		t->low = i;
	while (!f && t->end > 0 && !t->f[t->end - 1])
		t->end--;
}

/*
 * A pass over a table that must meet each open file once (a fork's,
 * a teardown's, an exec's charge: once per file however many
 * descriptors name it) marks each file it meets: linear, where asking
 * "does an earlier descriptor name it" of each was quadratic (a million
 * compares for 1,024 descriptors). One pass at a time (mark_lock, a
 * leaf: nothing is taken under it); each pass has a number of its own.
 */
static struct spinlock mark_lock = SPINLOCK_INIT("fmark");
static uint64_t mark_pass;

static uint64_t pass_begin(void)
{
	spin_lock(&mark_lock);
	return ++mark_pass;
}

static int first_meet(struct file *f, uint64_t pass)
{
	if (f->mark == pass)
		return 0;
	f->mark = pass;
	return 1;
}

/* Drop a reference to f (of a descriptor or a call). The charges are
   the tables' (named, uncharge), so the last one just frees it. */
static void fput(struct space *sp, struct file *f)
{
	(void)sp;
	if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		if (f->pipe)
			pipe_end_gone(f->pipe, f->kind == FK_PIPE_W);
		if (f->kind == FK_FILE)
			lock_file_gone(f, f->ip.ino);  /* its flock locks (flock.c) */
		if (f->kind == FK_FILE)
			ino_drop(f->ip.ino);          /* (its last hold frees an orphan: orphan.c) */
		kfree(f);
	}
}

/* Does another descriptor of t than `fd` name f? t's lock held. A
   file with no reference but the caller's (a close's, which holds its
   descriptor's) has none, and needs no scan. */
static int named(struct ftable *t, struct file *f, int fd)
{
	if (__atomic_load_n(&f->refs, __ATOMIC_ACQUIRE) <= 1)
		return 0;
	for (int i = 0; i < t->end; i++)
		if (i != fd && t->f[i] == f)
			return 1;
	return 0;
}

/* What a space is charged for an open file its table names: a pipe's
   end costs its part of the pipe besides (pipe.c). */
static uint64_t cost(struct file *f)
{
	return kheap_charge(sizeof(struct file)) + (f->pipe ? pipe_charge(f->kind == FK_PIPE_W) : 0);
}

/* The space's charge for one open file its table names. */
static void charge(struct space *sp, struct file *f, long sign)
{
	uint64_t c = cost(f);
	if (sign > 0)
		__atomic_add_fetch(&sp->kbytes, c, __ATOMIC_RELAXED);
	else
		__atomic_sub_fetch(&sp->kbytes, c, __ATOMIC_RELAXED);
	if (f->pipe)
		pipe_named(f->pipe, (int)sign);
}

/* Descriptor fd's file, held (fput it): 0 if fd is not open. */
static struct file *fget(struct space *sp, uint64_t fd)
{
	struct ftable *t = ftab(sp, 0);
	struct file *f = 0;
	if (!t || fd >= MAXFILE_SPACE)
		return 0;
	spin_lock(&t->lock);
	if (fd < (uint64_t)t->cap && (f = t->f[fd]))
		__atomic_add_fetch(&f->refs, 1, __ATOMIC_ACQ_REL);
	spin_unlock(&t->lock);
	return f;
}

/* Put f at sp's lowest free descriptor: it, or -EMFILE. sp is charged
   for f if no other descriptor names it (a dup racing a close of the
   first), unless `charged` (open's new file, charged when made). */
static long install(struct space *sp, struct ftable *t, struct file *f, int charged)
{
	long r = -EMFILE;
	int cap;
	spin_lock(&t->lock);
	for (int i = t->low; i < (cap = t->cap); i++)
		if (!t->f[i]) {
			if (!charged && !named(t, f, i))
				charge(sp, f, 1);
			set_slot(t, i, f);
			__atomic_add_fetch(&f->refs, 1, __ATOMIC_ACQ_REL);
			r = i;
			break;
		}
	spin_unlock(&t->lock);
	if (r == -EMFILE && (r = grow(sp, t, cap + 1)) == 0)
		return install(sp, t, f, charged);   /* (full: room for twice as many) */
	return r;
}

/* The user's path copied into path: 0, -EFAULT, -ENAMETOOLONG, -ENOENT (""). */
long getpath(uint64_t upath, char *path)
{
	long r = copyin_str(path, upath, FPATH_MAX);
	if (r < 0)
		return r == -EINVAL ? -ENAMETOOLONG : r;
	return path[0] ? 0 : -ENOENT;
}

/* ip at the user's path: 0, or an error; 0 with *blocked when the thread
   blocked (the call must return at once: it will run again). */
static long lookup(uint64_t upath, struct inode *ip, int *blocked)
{
	char path[FPATH_MAX];
	struct fsctx c;
	long r = getpath(upath, path);
	if (!r)
		r = RETRY(ext2_namei(&c, path, ip));
	*blocked = r == -EBWAIT;
	return *blocked ? 0 : r;
}

/* Does path (as open follows it with flags) still name inode ino? 0,
   -ENOENT if not, -EBWAIT if the thread blocked, or an error. */
static long same(const char *path, int flags, uint32_t ino)
{
	struct fsctx c;
	struct inode ip;
	long r = RETRY(ext2_lnamei(&c, path, &ip));
	if (!r && IS_LNK(&ip) && !(flags & FO_NOFOLLOW))
		r = RETRY(ext2_namei(&c, path, &ip));
	return r ? r : ip.ino == ino ? 0 : -ENOENT;
}

/* (path, FO_* flags, mode for FO_CREAT) */
long sys_file_open(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	int acc = a1 & FO_ACCMODE;
	if (!disk_blocks)
		return -ENODEV;
	if (acc == FO_ACCMODE)
		return -EINVAL;
	struct inode ip;
	struct fsctx c;
	char path[FPATH_MAX];
	long r = getpath(a0, path), made = 0;
	if (!r && (r = orphan_reap(FSW_WAIT)) == -EBWAIT)
		return 0;                /* (the thread blocked: the call runs again) */
	/* A file it makes is held from the step that makes it and needs no
	   block after (a wait would run the call again: EEXIST for O_EXCL) */
	if (!r && (a1 & FO_CREAT) && (made = r = RETRY(ext2_create_held(&c, path, 0x8000 | (a2 & 07777),
									  (a1 & FO_EXCL) != 0, &ip))) > 0)
		r = 0;
	if (!r && !made)
		r = (a1 & FO_CREAT) ? RETRY(ext2_iget(&c, ip.ino, &ip)) : RETRY(ext2_lnamei(&c, path, &ip));
	if (!r && IS_LNK(&ip))            /* (also what O_CREAT found: it is followed too) */
		r = (a1 & FO_NOFOLLOW) ? -ELOOP : RETRY(ext2_namei(&c, path, &ip));
	if (!r && (a1 & FO_DIRECTORY) && !IS_DIR(&ip))
		r = -ENOTDIR;
	if (made > 0 && r)
		ino_drop(ip.ino);
	if (r)
		return r == -EBWAIT ? 0 : r;
	if (IS_DIR(&ip) && (acc != FO_RDONLY || (a1 & (FO_TRUNC | FO_CREAT))))
		return -EISDIR;
	/* the access asked (a file it just made: its creator may, whatever
	   the mode: POSIX) and a truncation need the file's permission */
	int want = (acc != 1 ? 4 : 0) | (acc != FO_RDONLY || (a1 & FO_TRUNC) ? 2 : 0);
	if (!made && !perm_ok(&ip, want))
		return -EACCES;
	int trunc = !made && (a1 & FO_TRUNC) && acc != FO_RDONLY && IS_REG(&ip);   /* (new: empty) */
	/* (our dirty shared pages first, else their write-back would come
	   after the truncation: fmapcoh.c; none with FO_EXCL, a new file) */
	if (trunc && !(a1 & FO_EXCL) && fmap_file_flush(ip.ino, 0, ~0UL) == -EBWAIT)
		return 0;                /* the thread blocked: the call runs again */
	if (trunc && (r = RETRY(ext2_truncate(&c, ip.ino, 0))))
		return r == -EBWAIT ? 0 : r;
	if (trunc)
		fmap_file_drop(ip.ino, 0, ~0UL);
	if (trunc)
		fshare_trunc(ip.ino, 0);
	struct ftable *t = ftab(sp, 1);
	struct file *f = t ? kzalloc_user(sp, sizeof *f) : 0;
	if (!f && made)
		ino_drop(ip.ino);
	if (!f)
		return -ENOMEM;
	/* Held before it is looked up again: an unlink between the first
	   lookup and the hold may have freed it (orphan.c) */
	if (!made && !(r = ino_open(ip.ino)) && (r = same(path, (int)a1, ip.ino)))
		ino_drop(ip.ino);
	if (r) {                 /* (-EBWAIT: blocked, runs again; nothing installed) */
		kfree_user(sp, f, sizeof *f);
		return r == -EBWAIT ? 0 : r;
	}
	f->ip = ip;
	f->flags = (int)a1;
	if ((r = install(sp, t, f, 1)) < 0) {
		ino_drop(ip.ino);
		kfree_user(sp, f, sizeof *f);
	}
	return r;
}

long sys_file_close(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	struct ftable *t = ftab(sp, 0);
	if (!t || a0 >= MAXFILE_SPACE)
		return -EBADF;
	spin_lock(&t->lock);
	struct file *f = a0 < (uint64_t)t->cap ? t->f[a0] : 0;
	if (f)
		set_slot(t, (int)a0, 0);
	if (f && !named(t, f, (int)a0))
		charge(sp, f, -1);           /* its table's last descriptor of f */
	spin_unlock(&t->lock);
	if (!f)
		return -EBADF;
	if (f->kind == FK_FILE)
		lock_close(sp, f->ip.ino);   /* POSIX: any close drops the process's record locks */
	fput(sp, f);
	orphan_reap(FSW_NOWAIT);     /* (an orphan it held freed now if its blocks are in) */
	return 0;
}

long sys_cputs(uint64_t buf, uint64_t len, uint64_t c, uint64_t d, uint64_t e, uint64_t f);

/* A read or write (wr) of an open file that is not the disk's: a pipe's
   end (pipe.c), the console, /dev/null. No offset: pread, pwrite -ESPIPE. */
static long other_rw(struct file *f, uint64_t ubuf, uint64_t n, int at, int wr)
{
	int acc = f->flags & FO_ACCMODE;
	if (wr ? acc == FO_RDONLY : acc == 1)
		return -EBADF;
	if (at)
		return -ESPIPE;
	if (f->pipe)
		return wr ? pipe_write(f->pipe, ubuf, n) : pipe_read(f->pipe, ubuf, n);
	if (!user_range_ok(ubuf, n))
		return -EFAULT;
	if (!wr || f->kind == FK_NULL)
		return wr ? (long)n : 0;         /* (the console's input is always at its end) */
	return sys_cputs(ubuf, MIN(n, 64 * 1024), 0, 0, 0, 0);   /* (its largest) */
}

static void other_stat(struct file *f, struct kstat *st)
{
	if (f->pipe) {
		pipe_stat(f->pipe, st);
		return;
	}
	memset(st, 0, sizeof *st);
	st->mode = f->kind == FK_NULL ? 0020000 | 0666 : 0020000 | 0620;   /* S_IFCHR */
	st->nlink = 1;
	st->blksize = f->kind == FK_NULL ? 4096 : 1024;
}

/* Read n bytes at off (the descriptor's offset if `at` is 0). */
static long do_read(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t off, int at)
{
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, fd);
	if (!f)
		return -EBADF;
	long r = -EISDIR;
	if (f->kind) {
		r = other_rw(f, ubuf, n, at, 0);
		goto out;
	}
	if (IS_DIR(&f->ip))
		goto out;
	r = -EBADF;
	if ((f->flags & FO_ACCMODE) == 1)    /* opened write-only */
		goto out;
	r = -EFAULT;
	if (!user_range_ok(ubuf, n))
		goto out;
	r = -EINVAL;
	if (at && off < 0)
		goto out;
	uint64_t pos = at ? (uint64_t)off : __atomic_load_n(&f->off, __ATOMIC_RELAXED);
	struct inode ip;
	r = 0;
	if (orphan_reap(FSW_WAIT) == -EBWAIT || fmap_file_flush(f->ip.ino, pos, n) == -EBWAIT)
		goto out;                /* (our shared map's stores first: fmapcoh.c; blocked, runs again) */
	for (;;) {
		struct fsctx c = { 0 };
		fmap_copy_reset();
		r = ext2_iget(&c, f->ip.ino, &ip);
		if (!r)
			r = ext2_read(&c, &ip, pos, ubuf, MIN(n, 1UL << 30));
		long w = fmap_copy_wait(r, 64 * 1024);   /* (ubuf a file page on its way: fmap.c) */
		if (w != 2 && (r = w) <= 0)
			goto out;
		if (w != 2)
			continue;
		if (r != -EBWAIT)
			break;
		if ((r = disk_wait(c.wait)) <= 0)
			goto out;              /* (0: the thread blocked; the call runs again) */
	}
	if (r > 0)
		fshare_read(f->ip.ino, pos, ubuf, (uint64_t)r);   /* other spaces' stores in shared maps */
	if (r > 0 && !at) {
		__atomic_store_n(&f->off, pos + (uint64_t)r, __ATOMIC_RELAXED);
		readahead(f, &ip, pos, pos + (uint64_t)r);
	}
out:
	fput(sp, f);
	return r;
}

long sys_file_read(ARGS)
{
	UNUSED();
	return do_read(a0, a1, a2, 0, 0);
}

long sys_file_pread(ARGS)
{
	UNUSED();
	return do_read(a0, a1, a2, (int64_t)a3, 1);
}

long sys_file_lseek(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, a0);
	if (!f)
		return -EBADF;
	if (f->kind) {
		long k = f->kind == FK_NULL ? 0 : -ESPIPE;   /* (as Linux's /dev/null) */
		fput(sp, f);
		return k;
	}
	struct fsctx c;
	struct inode ip;
	long e = a2 == 2 ? RETRY(ext2_iget(&c, f->ip.ino, &ip)) : 0;
	if (e) {
		fput(sp, f);
		return e == -EBWAIT ? 0 : e;
	}
	int64_t base = a2 == 0 ? 0 : a2 == 1 ? (int64_t)f->off : a2 == 2 ? (int64_t)ip.size : -1;
	int64_t to = base + (int64_t)a1;
	long r = -EINVAL;
	if (a2 <= 2 && !__builtin_add_overflow(base, (int64_t)a1, &to) && to >= 0) {
		__atomic_store_n(&f->off, (uint64_t)to, __ATOMIC_RELAXED);
		r = to;
	}
	fput(sp, f);
	return r;
}

long sys_file_fstat(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, a0);
	if (!f)
		return -EBADF;
	struct kstat st;
	struct fsctx c;
	struct inode ip;
	if (f->kind) {
		other_stat(f, &st);
		fput(sp, f);
		return copyout(a1, &st, sizeof st);
	}
	long r = RETRY(ext2_iget(&c, f->ip.ino, &ip));
	fput(sp, f);
	if (r)
		return r == -EBWAIT ? 0 : r;
	ext2_stat(&ip, &st);
	return copyout(a1, &st, sizeof st);
}

long sys_file_stat(ARGS)
{
	UNUSED();
	if (!user_range_ok(a1, sizeof(struct kstat)))
		return -EFAULT;
	if (orphan_reap(FSW_WAIT) == -EBWAIT)
		return 0;                /* (the thread blocked: the call runs again) */
	struct inode ip;
	int blocked;
	long r = lookup(a0, &ip, &blocked);
	struct kstat st;
	if (r == -ENOENT || r == -ENODEV)
		return bin_lookup(a0, a1, r);
	if (r || blocked)
		return r;
	ext2_stat(&ip, &st);
	return copyout(a1, &st, sizeof st);
}

/* One try of getdents: f's entries from its offset into ubuf. */
static long dents(struct fsctx *c, struct file *f, uint64_t ubuf, uint64_t n)
{
	uint64_t off = __atomic_load_n(&f->off, __ATOMIC_RELAXED);
	struct inode ip;
	long r = ext2_iget(c, f->ip.ino, &ip);
	if (!r)
		r = ext2_readdir(c, &ip, &off, ubuf, MIN(n, 1UL << 20));
	if (r >= 0)
		__atomic_store_n(&f->off, off, __ATOMIC_RELAXED);
	return r;
}

/* Directory entries from the descriptor's offset (ext2_readdir). */
long sys_file_getdents(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, a0);
	if (!f)
		return -EBADF;
	long r = -ENOTDIR;
	if (!IS_DIR(&f->ip))
		goto out;
	r = -EFAULT;
	if (!user_range_ok(a1, a2))
		goto out;
	struct fsctx c;
	if ((r = RETRY(dents(&c, f, a1, a2))) == -EBWAIT)
		r = 0;                         /* (the thread blocked; the call runs again) */
out:
	fput(sp, f);
	return r;
}

/* A second descriptor for fd's open file (sharing its offset). */
long sys_file_dup(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, a0);
	if (!f)
		return -EBADF;
	long r = install(sp, sp->files, f, 0);
	fput(sp, f);
	return r;
}

/* Descriptor fd's inode number and FO_* flags, for a mapping (fmap.c):
   0 with a hold of the inode (ino_drop it once the mapping took its
   own), -EBADF if fd is not open, -ENODEV if it is not a regular file. */
long file_map_info(struct space *sp, uint64_t fd, uint32_t *ino, int *flags)
{
	struct file *f = fget(sp, fd);
	if (!f)
		return -EBADF;
	long r = IS_REG(&f->ip) && f->kind == FK_FILE ? 0 : -ENODEV;
	if (!r)
		ino_hold(f->ip.ino);
	*ino = f->ip.ino;
	*flags = f->flags;
	fput(sp, f);
	return r;
}

/* The space is gone: its descriptors and their files with it. */
void file_space_free(struct space *sp)
{
	struct ftable *t = sp->files;
	lock_space_gone(sp);             /* its record locks, or an exec's image takes them (flock.c) */
	if (!t)
		return;
	uint64_t pass = pass_begin();    /* (no VP of sp runs: its table is ours) */
	for (int i = 0; i < t->end; i++)
		if (t->f[i] && first_meet(t->f[i], pass))
			charge(sp, t->f[i], -1);
	spin_unlock(&mark_lock);
	for (int i = 0; i < t->end; i++)  /* (fput outside mark_lock: it takes a pipe's, flock's) */
		if (t->f[i])
			fput(sp, t->f[i]);
	sp->files = 0;
	if (t->keep)
		kfree_user(sp, t->keep, MAXFILE_SPACE * sizeof *t->keep);
	kfree_user(sp, t->f, (size_t)t->cap * sizeof *t->f);
	kfree_user(sp, t, sizeof *t);
}

/* Write n bytes at off (the descriptor's offset if `at` is 0; its end
   with FO_APPEND). A wait after some bytes ends the write short; then
   the position its first byte went to is stored at uwhere (if not 0). */
static long do_write(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t off, int at, uint64_t uwhere)
{
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, fd);
	struct fsctx c;
	if (!f)
		return -EBADF;
	long r = -EBADF;
	if (f->kind) {
		r = other_rw(f, ubuf, n, at, 1);
		goto out;
	}
	if ((f->flags & FO_ACCMODE) == FO_RDONLY)
		goto out;
	r = -EFAULT;
	if (!user_range_ok(ubuf, n))
		goto out;
	r = -EINVAL;
	if (at && off < 0)
		goto out;
	r = 0;
	if (!n || orphan_reap(FSW_WAIT) == -EBWAIT)
		goto out;
	uint64_t pos = at ? (uint64_t)off : __atomic_load_n(&f->off, __ATOMIC_RELAXED), where = pos;
	int append = !at && (f->flags & FO_APPEND);
	/* (our shared map's stores go first, not over these bytes later: fmapcoh.c) */
	if (fmap_file_flush(f->ip.ino, append ? 0 : pos, append ? ~0UL : n) == -EBWAIT)
		goto out;                /* (r 0: the thread blocked, the call runs again) */
	for (long w = 1; w == 1;) {         /* (again while ubuf is a file page on its way: fmap.c) */
		fmap_copy_reset();
		r = RETRY(ext2_write(&c, f->ip.ino, pos, ubuf, MIN(n, 1UL << 30), append, &where));
		if ((w = fmap_copy_wait(r, 0)) != 2 && w != 1)
			r = w ? w : -EBWAIT;
	}
	if (r > 0 && !at)
		__atomic_store_n(&f->off, where + (uint64_t)r, __ATOMIC_RELAXED);
	if (r > 0)
		fmap_file_drop(f->ip.ino, where, (uint64_t)r);   /* our maps see the new bytes */
	if (r > 0)
		fshare_write(f->ip.ino, where, ubuf, (uint64_t)r);   /* and every space's shared ones */
	if (r > 0 && (uint64_t)r < n && uwhere)
		copyout(uwhere, &where, sizeof where);   /* (a bad address: the caller's loss, r stands) */
	if (r == -EBWAIT)
		r = 0;
out:
	fput(sp, f);
	return r;
}

long sys_file_write(ARGS)
{
	UNUSED();
	return do_write(a0, a1, a2, 0, 0, 0);
}

/* (fd, buf, n, uint64_t *at): a write that says where a short one went
   (ulib's O_APPEND writes: the rest goes into the room the kernel kept,
   and the open file's offset, shared with a fork's child and moved by
   its appends, cannot say where that is). */
long sys_file_write_where(ARGS)
{
	UNUSED();
	return do_write(a0, a1, a2, 0, 0, a3);
}

long sys_file_pwrite(ARGS)
{
	UNUSED();
	return do_write(a0, a1, a2, (int64_t)a3, 1, 0);
}

/* (fd, length) */
long sys_file_ftruncate(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, a0);
	struct fsctx c;
	if (!f)
		return -EBADF;
	long r = -EINVAL;
	int ok = (f->flags & FO_ACCMODE) != FO_RDONLY && IS_REG(&f->ip) && (int64_t)a1 >= 0;
	if (ok && fmap_file_flush(f->ip.ino, a1, ~0UL) == -EBWAIT)
		r = -EBWAIT;             /* (our dirty shared pages first: fmapcoh.c) */
	else if (ok && !(r = RETRY(ext2_truncate(&c, f->ip.ino, a1))))
		fmap_file_drop(f->ip.ino, a1, ~0UL), fshare_trunc(f->ip.ino, a1);   /* past a1: zeros, or gone */
	fput(sp, f);
	return r == -EBWAIT ? 0 : r;
}

/* (fd): every dirty block of the cache written and waited for (the
   file's data and metadata among them). */
long sys_file_fsync(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, a0);
	if (!f)
		return -EBADF;
	fput(sp, f);
	long e = orphan_reap(FSW_WAIT);
	if (e)
		return e == -EBWAIT ? 0 : e;
	return disk_sync();
}

/* unlink (0), rmdir (1), mkdir (2: a1 the mode) of the user's path. */
static long path_op(uint64_t upath, int op, uint64_t mode)
{
	char path[FPATH_MAX];
	struct fsctx c;
	uint32_t ino;
	if (!disk_blocks)
		return -ENODEV;
	long r = getpath(upath, path);
	if (r || (r = orphan_reap(FSW_WAIT)))
		return r == -EBWAIT ? 0 : r;
	if (op == 2)
		r = RETRY(ext2_create(&c, path, 0x4000 | (mode & 07777), 1, &ino));
	else
		r = RETRY(ext2_unlink(&c, path, op));
	return r == -EBWAIT ? 0 : r;
}

long sys_file_unlink(ARGS)
{
	UNUSED();
	return path_op(a0, 0, 0);
}

long sys_file_rmdir(ARGS)
{
	UNUSED();
	return path_op(a0, 1, 0);
}

long sys_file_mkdir(ARGS)
{
	UNUSED();
	if ((a1 & 0170000) == 0120000)
		return file_symlink(a0, a2);          /* S_IFLNK: a link to a2 (syslink.c) */
	return path_op(a0, 2, a1);
}

/* (from, to) */
long sys_file_rename(ARGS)
{
	UNUSED();
	char from[FPATH_MAX], to[FPATH_MAX];
	struct fsctx c;
	if (!disk_blocks)
		return -ENODEV;
	long r = getpath(a0, from);
	if (!r && !(r = getpath(a1, to)) && !(r = orphan_reap(FSW_WAIT)))
		r = RETRY(ext2_rename(&c, from, to));
	return r == -EBWAIT ? 0 : r;
}

/* exec (exec.c): keep[i] (n entries) is -1 or a descriptor of sp that
   the new image gets as its descriptor i: 0, or -EBADF if one is not
   open. Made when the new image is built: its table, if it keeps any
   (-ENOMEM). */
long file_exec_check(struct space *sp, struct space *nw, const int16_t *keep, int n)
{
	int top = -1;                    /* nw's highest descriptor */
	for (int i = 0; i < n; i++) {
		if (keep[i] < 0)
			continue;
		struct file *f = fget(sp, (uint64_t)keep[i]);
		if (!f)
			return -EBADF;
		fput(sp, f);
		top = i;
	}
	if (top < 0)
		return 0;
	struct ftable *t = ftab(sp, 0), *nt = ftab(nw, 1);
	if (!nt || grow(nw, nt, top + 1))
		return -ENOMEM;
	int16_t *k = t->keep ? 0 : kmalloc_user(sp, MAXFILE_SPACE * sizeof *k);
	if (!t->keep && !k)
		return -ENOMEM;
	spin_lock(&t->lock);
	if (!t->keep)
		t->keep = k, k = 0;
	spin_unlock(&t->lock);
	if (k)                           /* (another VP's exec made it first) */
		kfree_user(sp, k, MAXFILE_SPACE * sizeof *k);
	return 0;
}

/* space_exec: what the exec that ends old keeps. A descriptor kept is
   one file_exec_check found open, so old has its table then. */
void file_exec_keep(struct space *old, const int16_t *keep)
{
	struct ftable *t = ftab(old, 0);
	if (t && t->keep)                /* (none: this exec keeps nothing) */
		memcpy(t->keep, keep, MAXFILE_SPACE * sizeof *t->keep);
}

/* old's last VP has ended (space_finish): the descriptors it keeps go
   to nw, each file charged to nw (once however many of nw's descriptors
   name it); old's table drops its references and charges with old. */
void file_exec_move(struct space *old, struct space *nw)
{
	struct ftable *t = old->files, *n = nw->files;
	if (!t || !t->keep || !n)
		return;
	uint64_t pass = pass_begin();
	for (int i = 0; i < n->cap; i++) {
		int k = t->keep[i];
		struct file *f = k >= 0 && k < t->cap ? t->f[k] : 0;
		if (!f)
			continue;
		__atomic_add_fetch(&f->refs, 1, __ATOMIC_ACQ_REL);   /* nw's; old's go with old's table */
		set_slot(n, i, f);
		if (first_meet(f, pass))
			charge(nw, f, 1);
	}
	spin_unlock(&mark_lock);
}

/* fork (fork.c): ch, not yet running, gets a reference to each of sp's
   open files under the same descriptor (the same open file: offset and
   flags shared), charged to ch's quota before any is taken: 0, or
   -ENOMEM with nothing taken (ch's table, if made, goes with ch). */
long file_fork(struct space *sp, struct space *ch)
{
	struct ftable *t = ftab(sp, 0), *n;
	if (!t)
		return 0;
	if (!(n = ftab(ch, 1)))
		return -ENOMEM;
	spin_lock(&t->lock);
	while (t->cap > n->cap) {        /* (ch's table as large as ours: grown meanwhile?) */
		int cap = t->cap;
		spin_unlock(&t->lock);
		if (grow(ch, n, cap))
			return -ENOMEM;
		spin_lock(&t->lock);
	}
	uint64_t bytes = 0, pass = pass_begin();
	for (int i = 0; i < t->end; i++)
		bytes += t->f[i] && first_meet(t->f[i], pass) ? cost(t->f[i]) : 0;
	spin_unlock(&mark_lock);
	long r = mem_quota_ok(ch, bytes) ? 0 : -ENOMEM;
	for (int i = 0; !r && i < t->end; i++)
		if ((n->f[i] = t->f[i]))
			__atomic_add_fetch(&n->f[i]->refs, 1, __ATOMIC_ACQ_REL);
	if (!r) {
		n->end = t->end;
		n->low = t->low;
	}
	spin_unlock(&t->lock);
	pass = pass_begin();             /* (ch does not run yet: its table is ours) */
	for (int i = 0; !r && i < n->end; i++)
		if (n->f[i] && first_meet(n->f[i], pass))
			charge(ch, n->f[i], 1);
	spin_unlock(&mark_lock);
	return r;
}

/* (fd, FO_APPEND or 0): F_SETFL's O_APPEND on the open file itself, as
   POSIX has status flags per open file description (do_write reads it). */
long sys_file_setfl(ARGS)
{
	UNUSED();
	if (a1 & ~(uint64_t)FO_APPEND)
		return -EINVAL;
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, a0);
	if (!f)
		return -EBADF;
	int old = __atomic_load_n(&f->flags, __ATOMIC_RELAXED), nw;
	do
		nw = (old & ~FO_APPEND) | (int)a1;
	while (!__atomic_compare_exchange_n(&f->flags, &old, nw, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	fput(sp, f);
	return 0;
}

/* fchmod, futimens (sysmode.c): ext2_setattr on fd's file, held meanwhile
   (so an unlinked one is not freed under it): -EBADF, -EINVAL for what is
   not the disk's, -EBWAIT if the thread blocked. */
long file_setattr_fd(uint64_t fd, const struct fattr *a)
{
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, fd);
	struct fsctx c;
	if (!f)
		return -EBADF;
	long r = f->pipe ? pipe_setattr(f->pipe, a->mode) : f->kind ? -EINVAL
		: RETRY(ext2_setattr(&c, 0, f->ip.ino, a));
	fput(sp, f);
	return r;
}

/* A hard link `to` of fd's file (sysown.c), held meanwhile so that its
   inode number stays its own; -EXDEV for a pipe or the console (Linux: not
   on this file system). */
long file_link_fd(uint64_t fd, const char *to)
{
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, fd);
	struct fsctx c;
	if (!f)
		return -EBADF;
	long r = f->kind ? -EXDEV : RETRY(ext2_link_ino(&c, f->ip.ino, to));
	fput(sp, f);
	return r;
}

/* INFO_FILES (word w): a bit for each open descriptor 64w..64w+63 (bit
   fd % 64), -EINVAL past the table; w -1: how many words from 0 hold
   every open descriptor (0: none), so a program's start asks only those
   (one call for a program with none, not 16); INFO_FILE_FLAGS: fd's FO_*
   flags (-EBADF). What a program that exec made finds (ulib's fd.c). */
long file_info(int what, uint64_t fd)
{
	struct space *sp = myvp()->space;
	struct ftable *t = ftab(sp, 0);
	if (what == INFO_FILE_FLAGS || what == INFO_FILE_KIND) {
		struct file *f = fget(sp, fd);
		long r = !f ? -EBADF : what == INFO_FILE_KIND ? f->kind : f->flags;
		if (f)
			fput(sp, f);
		return r;
	}
	if (fd != ~0UL && fd >= MAXFILE_SPACE / 64)
		return -EINVAL;
	long mask = 0;
	if (!t)
		return 0;
	spin_lock(&t->lock);
	if (fd == ~0UL)
		mask = (t->end + 63) / 64;
	for (int i = 0; fd != ~0UL && i < 64 && fd * 64 + (uint64_t)i < (uint64_t)t->end; i++)
		if (t->f[fd * 64 + (uint64_t)i])
			mask |= 1L << i;
	spin_unlock(&t->lock);
	return mask;
}

/* ---- pipes (pipe.c) and the console's descriptors ---- */

/* SYS_pipe: a new pipe's ends as open files at sp's two lowest free
   descriptors, whose numbers go to the user's int[2] at ufd: 0, -EFAULT,
   -ENOMEM (the quota is asked before anything is built), -EMFILE. */
long file_pipe_make(struct space *sp, uint64_t ufd)
{
	if (!user_range_ok(ufd, 2 * sizeof(int)))
		return -EFAULT;
	struct ftable *t = ftab(sp, 1);
	if (!t || !mem_quota_ok(sp, 2 * kheap_charge(sizeof(struct file)) + pipe_charge(0) + pipe_charge(1)))
		return -ENOMEM;
	struct pipe *p = pipe_new();
	struct file *f[2] = { kmalloc_reserve(sizeof(struct file)), kmalloc_reserve(sizeof(struct file)) };
	int fd[2] = { -1, -1 }, cap = 0;
again:
	if (p && f[0] && f[1]) {
		spin_lock(&t->lock);
		fd[0] = fd[1] = -1;
		cap = t->cap;
		for (int i = t->low, k = 0; k < 2 && i < cap; i++)
			if (!t->f[i])
				fd[k++] = i;
		for (int k = 0; fd[1] >= 0 && k < 2; k++) {
			memset(f[k], 0, sizeof *f[k]);
			f[k]->refs = 1;
			f[k]->kind = FK_PIPE_R + k;
			f[k]->flags = k;         /* FO_RDONLY, O_WRONLY */
			f[k]->pipe = p;
			/* charged before it is published: once in the table,
			   another VP may close it (and free it) at once */
			charge(sp, f[k], 1);
			set_slot(t, fd[k], f[k]);
		}
		spin_unlock(&t->lock);
	}
	long g = p && f[0] && f[1] && fd[1] < 0 ? grow(sp, t, cap + 1) : -1;
	if (g == 0)
		goto again;                  /* (full: room for twice as many) */
	if (fd[1] < 0) {
		long r = g == -EMFILE ? -EMFILE : -ENOMEM;
		kfree(f[0]);
		kfree(f[1]);
		pipe_discard(p);
		return r;
	}
	if (copyout(ufd, fd, sizeof fd) < 0) {   /* (a read-only page) */
		sys_file_close((uint64_t)fd[0], 0, 0, 0, 0, 0);
		sys_file_close((uint64_t)fd[1], 0, 0, 0, 0, 0);
		return -EFAULT;
	}
	return 0;
}

/* Descriptor fd's pipe, its open file held in *hold (file_pipe_put it),
   *w 1 for the write end, *mine how many of the pipe's ends sp's table
   names, or 0 if anything else holds one of those (another space's
   table, a call under way: it may still change the pipe, pipe.c's
   state); 0 if fd is not open or not a pipe's end. */
struct pipe *file_pipe(struct space *sp, uint64_t fd, void **hold, int *w, int *mine)
{
	struct file *f = fget(sp, fd);
	if (f && !f->pipe) {
		fput(sp, f);
		f = 0;
	}
	if (!f)
		return 0;
	struct ftable *t = sp->files;
	struct file *e[2] = { f, 0 };    /* the pipe's two open files, at most */
	int n[2] = { 1, 0 }, other = 0;   /* (f: our own hold besides) */
	spin_lock(&t->lock);
	for (int i = 0; i < t->end; i++) {
		struct file *g = t->f[i];
		if (g && g->pipe == f->pipe) {
			int k = g != f;
			e[k] = g;
			n[k]++;
		}
	}
	for (int k = 0; k < 2; k++)      /* does anything else hold one? */
		other |= e[k] && __atomic_load_n(&e[k]->refs, __ATOMIC_ACQUIRE) != n[k];
	spin_unlock(&t->lock);
	*hold = f;
	*w = f->kind == FK_PIPE_W;
	*mine = other ? 0 : (n[0] > 1) + (e[1] != 0);
	return f->pipe;
}

void file_pipe_put(struct space *sp, void *hold)
{
	fput(sp, hold);
}

/* (FK_CONS_IN, FK_CONS_OUT or FK_NULL, FO_ access mode for FK_NULL): a
   descriptor naming the console or /dev/null, which ulib makes only for
   an exec to keep (ulib/libc/fd.c: __fd_keep). */
long sys_file_special(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	if ((a0 != FK_CONS_IN && a0 != FK_CONS_OUT && a0 != FK_NULL) || a1 >= FO_ACCMODE)
		return -EINVAL;
	struct ftable *t = ftab(sp, 1);
	struct file *f = t ? kzalloc_user(sp, sizeof *f) : 0;
	if (!f)
		return -ENOMEM;
	f->kind = (int)a0;
	f->flags = a0 == FK_CONS_IN ? FO_RDONLY : a0 == FK_CONS_OUT ? 1 : (int)a1;
	long r = install(sp, t, f, 1);
	if (r < 0)
		kfree_user(sp, f, sizeof *f);
	return r;
}

/* ---- advisory locks (flock.c) ---- */

/* fd's open file held in *hold (file_pipe_put it), with its inode, FO_*
   flags, offset and, if size is not 0, its size: 0; -EBADF if fd is not
   open; -EINVAL if it is not the disk's; -EBWAIT if the thread blocked
   for the size (the call returns 0: it runs again), *hold then 0. */
long file_lock_info(struct space *sp, uint64_t fd, void **hold, uint32_t *ino, int *flags,
		    int64_t *off, int64_t *size)
{
	struct file *f = fget(sp, fd);
	struct fsctx c;
	struct inode ip;
	*hold = 0;
	if (!f)
		return -EBADF;
	long r = f->kind == FK_FILE ? 0 : -EINVAL;
	if (!r && size)
		r = RETRY(ext2_iget(&c, f->ip.ino, &ip));
	if (r) {
		fput(sp, f);
		return r;
	}
	if (size)
		*size = (int64_t)ip.size;
	*hold = f;
	*ino = f->ip.ino;
	*flags = f->flags;
	*off = (int64_t)__atomic_load_n(&f->off, __ATOMIC_RELAXED);
	return 0;
}

/* Does a descriptor of sp hold an open file that `match` accepts? (An
   OFD record's charge, and an exec's record locks, follow the spaces that
   hold the file: flock.c.) Under the table's lock, so no descriptor
   changes while we look. */
static int file_held(struct space *sp, int (*match)(struct file *, uintptr_t),
		     uintptr_t arg)
{
	struct ftable *t = ftab(sp, 0);
	int r = 0;
	if (!t)
		return 0;
	spin_lock(&t->lock);
	for (int i = 0; i < t->end && !r; i++)
		r = t->f[i] && match(t->f[i], arg);
	spin_unlock(&t->lock);
	return r;
}

static int is_file(struct file *f, uintptr_t file)
{
	return (uintptr_t)f == file;
}

static int of_ino(struct file *f, uintptr_t ino)
{
	return f->kind == FK_FILE && f->ip.ino == ino;
}

/* Does a descriptor of sp name open file `file`? */
int file_names(struct space *sp, const void *file)
{
	return file_held(sp, is_file, (uintptr_t)file);
}

/* Does a descriptor of sp name a file of inode ino? */
int file_names_ino(struct space *sp, uint32_t ino)
{
	return file_held(sp, of_ino, ino);
}
