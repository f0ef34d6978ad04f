/*
 * The calls that change the disk's file system (kernel/ext2w.c,
 * docs/files.md): unlink, rmdir, mkdir, rename, creat, ftruncate, truncate,
 * fsync. write and pwrite are fd.c's. Without a disk each fails as on an
 * empty, read-only file system (EROFS, ENOENT).
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <errno.h>
#include <string.h>
#include <limits.h>
#include <stdio.h>
#include <animart/sys.h>
#include <anima/file.h>
#include "path.h"
#include <animart/fence.h>
#include "nocancel.h"
#include "../pthread/pwait.h"

int __fd_kfd(int fd);                  /* fd.c */

static int ret(long r, int nodisk)
{
	if (r == -ENODEV)
		r = -nodisk;
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

/* Each path is made absolute first (path.h: the working directory). */
int unlink(const char *path)
{
	FENCED(unlink(path));
	char abs[PATH_MAX];
	if (!path)
		return ret(-EFAULT, 0);
	if (abs_path(path, abs) < 0)
		return -1;
	if (!strcmp(abs, "/dev/null"))
		return ret(-EROFS, 0);
	return ret(syscall1(SYS_file_unlink, abs), ENOENT);
}

int rmdir(const char *path)
{
	FENCED(rmdir(path));
	char abs[PATH_MAX];
	if (!path)
		return ret(-EFAULT, 0);
	return abs_path(path, abs) < 0 ? -1 : ret(syscall1(SYS_file_rmdir, abs), ENOENT);
}

mode_t __umask_now(void);                /* nofile.c */

int mkdir(const char *path, mode_t mode)
{
	FENCED(mkdir(path, mode));
	char abs[PATH_MAX];
	if (!path)
		return ret(-EFAULT, 0);
	return abs_path(path, abs) < 0 ? -1 : ret(syscall2(SYS_file_mkdir, abs, mode & 07777 & ~__umask_now()), EROFS);
}

int rename(const char *from, const char *to)
{
	FENCED(rename(from, to));
	char a[PATH_MAX], b[PATH_MAX];
	if (!from || !to)
		return ret(-EFAULT, 0);
	if (abs_path(from, a) < 0 || abs_path(to, b) < 0)
		return -1;
	long r = syscall2(SYS_file_rename, a, b);
	/* A directory over an empty one replaces it (POSIX); the kernel's
	   rename refuses any directory there (-ENOTEMPTY), so the empty one
	   goes first, then the rename again: not atomic, there is a moment
	   when `to` names nothing. A directory that is not empty stays. */
	if (r == -ENOTEMPTY && !syscall1(SYS_file_rmdir, b))
		r = syscall2(SYS_file_rename, a, b);
	return ret(r, ENOENT);
}

int creat(const char *path, mode_t mode)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

/* fd's kernel descriptor, or -1 with errno set (EBADF, or EINVAL for a
   descriptor that is no file on the disk). */
static int kfd_of(int fd)
{
	if (fcntl(fd, F_GETFD) < 0)
		return -1;
	int k = __fd_kfd(fd);
	if (k < 0)
		errno = EINVAL;
	return k;
}

int ftruncate(int fd, off_t len)
{
	FENCED(ftruncate(fd, len));
	int k = kfd_of(fd);
	return k < 0 ? -1 : ret(syscall2(SYS_file_ftruncate, k, len), EINVAL);
}

int truncate(const char *path, off_t len)
{
	FENCED(truncate(path, len));
	int fd = __open_nocancel(path, O_WRONLY, 0);    /* (truncate is no cancellation point) */
	if (fd < 0)
		return -1;
	int r = ftruncate(fd, len);
	int e = errno;
	__close_nocancel(fd);
	errno = e;
	return r;
}

/* fsync and fdatasync are cancellation points (POSIX); sync is not */
int fsync(int fd)
{
	pcancel_point();
	return __fsync_nocancel(fd);
}

int __fsync_nocancel(int fd)
{
	FENCED(__fsync_nocancel(fd));
	int k = kfd_of(fd);
	return k < 0 ? -1 : ret(syscall1(SYS_file_fsync, k), EINVAL);
}

int fdatasync(int fd)
{
	return fsync(fd);
}
