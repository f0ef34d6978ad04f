/*
 * The file-system calls a program without files still mentions: there is
 * no file system, so each fails with the errno a
 * Linux program would get from an empty, read-only one. The console
 * descriptors (fd.c) are the console's and /dev/null, the one file.
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <string.h>

static int fail(int e)
{
	errno = e;
	return -1;
}

int __open_devnull(int flags);   /* fd.c */

int open(const char *path, int flags, ...)
{
	if (!path)
		return fail(EFAULT);
	if (!strcmp(path, "/dev/null"))
		return __open_devnull(flags);
	return fail(flags & O_CREAT ? EROFS : ENOENT);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	(void)dirfd;
	return open(path, flags);
}

/* "/" (read-only: no W_OK) and /dev/null exist; nothing else does. */
int access(const char *path, int mode)
{
	if (!path)
		return fail(EFAULT);
	if (mode & ~(R_OK | W_OK | X_OK))
		return fail(EINVAL);
	if (!strcmp(path, "/"))
		return mode & W_OK ? fail(EROFS) : 0;
	if (!strcmp(path, "/dev/null"))
		return mode & X_OK ? fail(EACCES) : 0;
	return fail(ENOENT);
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
	(void)path, (void)st;
	return fail(ENOENT);
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

