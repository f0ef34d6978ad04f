/*
 * The calls on symbolic links themselves (ext2link.c): lstat, which
 * describes a last component that is a link instead of following it,
 * and readlink, its target. The target is copied through a FLINK_MAX
 * buffer of kernel heap charged to the space, freed before return.
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED() ((void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5)

/* One try of llookup. */
static long lget(struct fsctx *c, const char *path, struct inode *ip, char *dst)
{
	long r = ext2_lnamei(c, path, ip);
	return !r && dst ? ext2_readlink(c, ip, dst) : r;
}

/* The inode at the user's path, a last link not followed; with a `dst`,
   also the link's target there (its length). -EBWAIT: the thread blocked,
   the call runs again. */
static long llookup(uint64_t upath, struct inode *ip, char *dst)
{
	char path[FPATH_MAX];
	struct fsctx c;
	long r = getpath(upath, path);
	if (r)
		return r;
	if (!disk_blocks)
		return -ENODEV;
	return RETRY(lget(&c, path, ip, dst));
}

/* (path, struct kstat *) */
long sys_file_lstat(ARGS)
{
	UNUSED();
	if (!user_range_ok(a1, sizeof(struct kstat)))
		return -EFAULT;
	struct inode ip;
	long r = llookup(a0, &ip, 0);
	if (r == -ENOENT || r == -ENODEV)
		return bin_lookup(a0, a1, r);
	if (r)
		return r == -EBWAIT ? 0 : r;
	struct kstat st;
	ext2_stat(&ip, &st);
	return copyout(a1, &st, sizeof st);
}

/* (path, buf, n): POSIX's readlink, -EINVAL if path is no link. */
long sys_file_readlink(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	if (!user_range_ok(a1, a2))
		return -EFAULT;
	if ((int64_t)a2 <= 0)
		return -EINVAL;
	char *t = kmalloc_user(sp, FLINK_MAX);
	if (!t)
		return -ENOMEM;
	struct inode ip;
	long r = llookup(a0, &ip, t);
	if (r >= 0)
		r = copyout(a1, t, MIN((uint64_t)r, a2)) ? -EFAULT : (long)MIN((uint64_t)r, a2);
	kfree_user(sp, t, FLINK_MAX);
	return r == -EBWAIT ? 0 : r;
}

/* symlink(target, path): SYS_file_mkdir(path, S_IFLNK, target), as
   call 113 and 114 were the only new numbers. */
long file_symlink(uint64_t upath, uint64_t utarget)
{
	struct space *sp = myvp()->space;
	char path[FPATH_MAX];
	long r = copyin_str(path, upath, sizeof path);
	if (r < 0)
		return r == -EINVAL ? -ENAMETOOLONG : r;
	if (!disk_blocks)
		return -ENODEV;
	char *t = kmalloc_user(sp, FLINK_MAX);
	if (!t)
		return -ENOMEM;
	r = copyin_str(t, utarget, FLINK_MAX);
	if (r == -EINVAL)
		r = -ENAMETOOLONG;
	else if (r >= 0 && (!path[0] || !t[0]))
		r = -ENOENT;                 /* POSIX: an empty path or target */
	struct fsctx c;
	if (r >= 0 && (r = RETRY(ext2_symlink(&c, path, t, strlen(t)))) == -EBWAIT)
		r = 0;                   /* (the thread blocked; the call runs again) */
	kfree_user(sp, t, FLINK_MAX);
	return r;
}
