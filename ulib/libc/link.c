/*
 * Symbolic links on the disk (kernel/ext2link.c): lstat describes a last
 * component that is a link, readlink and readlinkat give its target,
 * symlink and symlinkat make one. Every
 * other call that takes a path follows links in the kernel. With no disk
 * nothing exists (ENOENT), as for stat.
 */
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <errno.h>
#include <animart/sys.h>
#include <anima/file.h>
#include "path.h"

int __stat_call(const char *path, struct stat *st, long sysno);   /* nofile.c */

static int fail(long r)
{
	errno = r == -ENODEV ? ENOENT : (int)-r;
	return -1;
}

int lstat(const char *path, struct stat *st)
{
	return __stat_call(path, st, SYS_file_lstat);
}

ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	char abs[PATH_MAX];
	if (abs_path_at(dirfd, path, abs) < 0)
		return -1;
	long r = syscall3(SYS_file_readlink, abs, buf, n);
	return r < 0 ? fail(r) : r;
}

/* (the kernel's mkdir with S_IFLNK: calls 113 and 114 were the only
   new numbers) */
int symlinkat(const char *target, int dirfd, const char *path)
{
	char abs[PATH_MAX];
	if (!target)
		return fail(-EFAULT);
	if (abs_path_at(dirfd, path, abs) < 0)
		return -1;
	long r = syscall3(SYS_file_mkdir, abs, S_IFLNK | 0777, target);
	return r < 0 ? (r == -ENODEV ? (errno = EROFS, -1) : fail(r)) : 0;
}

int symlink(const char *target, const char *path)
{
	return symlinkat(target, AT_FDCWD, path);
}

ssize_t readlink(const char *path, char *buf, size_t n)
{
	return readlinkat(AT_FDCWD, path, buf, n);
}
