/*
 * The file-system calls a program without files still mentions: there is
 * no file system and no child process, so each fails with the errno a
 * Linux program would get from an empty, read-only one. The console
 * descriptors 0-2 (unistd.c) are the only open ones.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <string.h>

static int fail(int e)
{
	errno = e;
	return -1;
}

int open(const char *path, int flags, ...)
{
	(void)path;
	return fail(flags & O_CREAT ? EROFS : ENOENT);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	(void)dirfd;
	return open(path, flags);
}

int creat(const char *path, mode_t mode)
{
	(void)path, (void)mode;
	return fail(EROFS);
}

int fcntl(int fd, int cmd, ...)
{
	if (fd < 0 || fd > 2)
		return fail(EBADF);
	switch (cmd) {
	case F_GETFD:
		return 0;
	case F_GETFL:
		return fd == 0 ? O_RDONLY : O_WRONLY;
	default:                         /* no dup, no flags to change */
		return fail(EINVAL);
	}
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

int fstat(int fd, struct stat *st)
{
	if (fd < 0 || fd > 2)
		return fail(EBADF);
	memset(st, 0, sizeof *st);
	st->st_mode = S_IFCHR | 0620;    /* a terminal, as isatty says */
	st->st_nlink = 1;
	st->st_blksize = 1024;
	return 0;
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

pid_t wait(int *status)
{
	(void)status;
	return fail(ECHILD);
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	(void)pid, (void)status, (void)options;
	return fail(ECHILD);
}
