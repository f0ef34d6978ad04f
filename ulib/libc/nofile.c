/*
 * The file-system calls: open, stat and access reach the disk's ext2
 * file system (read-only so far; kernel/sysfile.c, docs/files.md); with
 * no disk, and for the calls that would write, each fails with the errno
 * a Linux program would get from an empty, read-only one. The console
 * descriptors (fd.c) are the console's and /dev/null.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <string.h>
#include <animart/sys.h>
#include <anima/file.h>
#include "path.h"

static int fail(int e)
{
	errno = e;
	return -1;
}

int __open_devnull(int flags);   /* fd.c */
int __open_file(const char *path, int flags);
void __kstat_to_stat(const struct kstat *k, struct stat *st);

/* (openat: cwd.c) */
int open(const char *path, int flags, ...)
{
	char abs[PATH_MAX];
	if (abs_path(path, abs) < 0)
		return -1;
	if (!strcmp(abs, "/dev/null"))
		return __open_devnull(flags);
	int r = __open_file(abs, flags);       /* fd.c: a file on the disk */
	if (r < 0 && errno == ENODEV)          /* no disk: an empty, read-only file system */
		return fail(flags & O_CREAT ? EROFS : ENOENT);
	if (r >= 0)
		path_opened(r, abs);
	return r;
}

/* "/" (read-only: no W_OK) and /dev/null exist; nothing else does. */
int access(const char *path, int mode)
{
	char abs[PATH_MAX];
	if (abs_path(path, abs) < 0)
		return -1;
	path = abs;
	if (mode & ~(R_OK | W_OK | X_OK))
		return fail(EINVAL);
	if (!strcmp(path, "/"))
		return mode & W_OK ? fail(EROFS) : 0;
	if (!strcmp(path, "/dev/null"))
		return mode & X_OK ? fail(EACCES) : 0;
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	if (mode & W_OK)
		return fail(EROFS);
	return (mode & X_OK) && !(st.st_mode & 0111) ? fail(EACCES) : 0;
}

int unlink(const char *path)
{
	if (!path)
		return fail(EFAULT);
	return fail(!strcmp(path, "/dev/null") ? EROFS : ENOENT);
}

int creat(const char *path, mode_t mode)
{
	(void)path, (void)mode;
	return fail(EROFS);
}

int stat(const char *path, struct stat *st)
{
	struct kstat k;
	char abs[PATH_MAX];
	if (abs_path(path, abs) < 0)
		return -1;
	long r = syscall2(SYS_file_stat, abs, &k);
	if (r == -ENODEV)
		return fail(ENOENT);           /* no disk: nothing exists */
	if (r < 0)
		return fail((int)-r);
	__kstat_to_stat(&k, st);
	return 0;
}

int lstat(const char *path, struct stat *st)
{
	return stat(path, st);
}

int mkdir(const char *path, mode_t mode)
{
	(void)path, (void)mode;
	return fail(EROFS);
}

int chmod(const char *path, mode_t mode)
{
	(void)path, (void)mode;
	return fail(ENOENT);
}

mode_t umask(mode_t mask)
{
	(void)mask;
	return 022;                      /* nothing is ever created to apply it to */
}

