/*
 * File descriptors and the file calls over ext2 (read side): open, read,
 * pread, lseek, close, fstat, stat, fdup. Each space has one table of
 * MAXFILE_SPACE descriptors, shared by its VPs, made at its first open;
 * the table and every open file are kernel heap charged to the space
 * (kzalloc_user: its quota, and the kernel's reserve stays free) and are
 * freed with it (file_space_free).
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
	int refs;                  /* descriptors naming it (the table's lock) + calls using it */
	uint64_t off;
	struct inode ip;           /* copied at open: the image is read-only */
};

struct ftable {
	struct spinlock lock;
	struct file *f[MAXFILE_SPACE];
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
	if (!n)
		return 0;
	spin_init(&n->lock, "ftable");
	spin_lock(&sp->lock);
	if (!(t = sp->files))
		__atomic_store_n(&sp->files, t = n, __ATOMIC_RELEASE);
	spin_unlock(&sp->lock);
	if (t != n)
		kfree_user(sp, n, sizeof *n);        /* another VP made it first */
	return t;
}

static void fput(struct space *sp, struct file *f)
{
	struct ftable *t = sp->files;
	spin_lock(&t->lock);
	int last = --f->refs == 0;
	spin_unlock(&t->lock);
	if (last)
		kfree_user(sp, f, sizeof *f);
}

/* Descriptor fd's file, held (fput it): 0 if fd is not open. */
static struct file *fget(struct space *sp, uint64_t fd)
{
	struct ftable *t = ftab(sp, 0);
	struct file *f = 0;
	if (!t || fd >= MAXFILE_SPACE)
		return 0;
	spin_lock(&t->lock);
	if ((f = t->f[fd]))
		f->refs++;
	spin_unlock(&t->lock);
	return f;
}

/* Put f at the lowest free descriptor: it, or -EMFILE. */
static long install(struct ftable *t, struct file *f)
{
	long r = -EMFILE;
	spin_lock(&t->lock);
	for (int i = 0; i < MAXFILE_SPACE; i++)
		if (!t->f[i]) {
			t->f[i] = f;
			f->refs++;
			r = i;
			break;
		}
	spin_unlock(&t->lock);
	return r;
}

/* ip at the user's path: 0, or an error; 0 with *blocked when the thread
   blocked (the call must return at once: it will run again). */
static long lookup(uint64_t upath, struct inode *ip, int *blocked)
{
	char path[FPATH_MAX];
	long r = copyin_str(path, upath, sizeof path);
	*blocked = 0;
	if (r < 0)
		return r == -EINVAL ? -ENAMETOOLONG : r;
	if (!path[0])
		return -ENOENT;                    /* POSIX: the empty path names nothing */
	for (;;) {
		struct fsctx c = { 0 };
		if ((r = ext2_namei(&c, path, ip)) != -EBWAIT)
			return r;
		if ((r = disk_wait(c.wait)) <= 0) {
			*blocked = r == 0;
			return r;
		}
	}
}

long sys_file_open(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	int writes = (a1 & FO_ACCMODE) != FO_RDONLY || (a1 & (FO_CREAT | FO_TRUNC | FO_APPEND));
	if (!disk_blocks)
		return -ENODEV;
	struct inode ip;
	int blocked;
	long r = lookup(a0, &ip, &blocked);
	if (r == -ENOENT && (a1 & FO_CREAT))
		return -EROFS;                     /* the write side is not there yet */
	if (r || blocked)
		return r;
	if (writes)
		return -EROFS;
	if ((a1 & FO_DIRECTORY) && !IS_DIR(&ip))
		return -ENOTDIR;
	struct ftable *t = ftab(sp, 1);
	struct file *f = t ? kzalloc_user(sp, sizeof *f) : 0;
	if (!f)
		return -ENOMEM;
	f->ip = ip;
	if ((r = install(t, f)) < 0)
		kfree_user(sp, f, sizeof *f);
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
	struct file *f = t->f[a0];
	t->f[a0] = 0;
	spin_unlock(&t->lock);
	if (!f)
		return -EBADF;
	fput(sp, f);
	return 0;
}

/* Read n bytes at off (the descriptor's offset if `at` is 0). */
static long do_read(uint64_t fd, uint64_t ubuf, uint64_t n, int64_t off, int at)
{
	struct space *sp = myvp()->space;
	struct file *f = fget(sp, fd);
	if (!f)
		return -EBADF;
	long r = -EISDIR;
	if (IS_DIR(&f->ip))
		goto out;
	r = -EFAULT;
	if (!user_range_ok(ubuf, n))
		goto out;
	r = -EINVAL;
	if (at && off < 0)
		goto out;
	uint64_t pos = at ? (uint64_t)off : __atomic_load_n(&f->off, __ATOMIC_RELAXED);
	for (;;) {
		struct fsctx c = { 0 };
		r = ext2_read(&c, &f->ip, pos, ubuf, MIN(n, 1UL << 30));
		if (r != -EBWAIT)
			break;
		if ((r = disk_wait(c.wait)) <= 0)
			goto out;              /* (0: the thread blocked; the call runs again) */
	}
	if (r > 0 && !at)
		__atomic_store_n(&f->off, pos + (uint64_t)r, __ATOMIC_RELAXED);
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
	int64_t base = a2 == 0 ? 0 : a2 == 1 ? (int64_t)f->off : a2 == 2 ? (int64_t)f->ip.size : -1;
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
	ext2_stat(&f->ip, &st);
	fput(sp, f);
	return copyout(a1, &st, sizeof st);
}

long sys_file_stat(ARGS)
{
	UNUSED();
	if (!user_range_ok(a1, sizeof(struct kstat)))
		return -EFAULT;
	struct inode ip;
	int blocked;
	long r = lookup(a0, &ip, &blocked);
	if (r || blocked)
		return r;
	struct kstat st;
	ext2_stat(&ip, &st);
	return copyout(a1, &st, sizeof st);
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
	for (;;) {
		struct fsctx c = { 0 };
		uint64_t off = __atomic_load_n(&f->off, __ATOMIC_RELAXED);
		r = ext2_readdir(&c, &f->ip, &off, a1, MIN(a2, 1UL << 20));
		if (r >= 0)
			__atomic_store_n(&f->off, off, __ATOMIC_RELAXED);
		if (r != -EBWAIT)
			break;
		if ((r = disk_wait(c.wait)) <= 0)
			break;                 /* (0: the thread blocked; the call runs again) */
	}
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
	long r = install(sp->files, f);
	fput(sp, f);
	return r;
}

/* The space is gone: its descriptors and their files with it. */
void file_space_free(struct space *sp)
{
	struct ftable *t = sp->files;
	if (!t)
		return;
	for (int i = 0; i < MAXFILE_SPACE; i++)
		if (t->f[i] && --t->f[i]->refs == 0)
			kfree_user(sp, t->f[i], sizeof *t->f[i]);
	sp->files = 0;
	kfree_user(sp, t, sizeof *t);
}
