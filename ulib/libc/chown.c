/*
 * chown, fchown, lchown, fchownat (kernel/sysown.c): the inode's owner
 * and group, 32 bits each, -1 keeps one. Root may give any owner, an
 * owner its file's group to one of its own (EPERM else: kernel/perm.c
 * via ext2_setattr); the kernel sets ctime and
 * clears set-user-ID (and set-group-ID where group-exec is set) on all
 * but a directory, as Linux's chown does. fchown of a pipe succeeds and
 * keeps nothing (Linux keeps a pipe's owner); of the console, EINVAL.
 */
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <animart/sys.h>
#include <anima/file.h>
#include <animart/fence.h>
#include "path.h"

int __fd_kfd_or_pipe(int fd);          /* fd.c */

/* 0, or -1 with errno -r (no disk: ENOENT, an empty file system) */
static int ret(long r)
{
	return r < 0 ? (errno = r == -ENODEV ? ENOENT : (int)-r, -1) : 0;
}

static long owner(uid_t uid, gid_t gid, long *g)
{
	*g = (long)(unsigned)gid;
	return (long)(unsigned)uid;
}

int fchown(int fd, uid_t uid, gid_t gid)
{
	FENCED(fchown(fd, uid, gid));
	long g, u = owner(uid, gid, &g);
	int k = __fd_kfd_or_pipe(fd);
	return k < 0 ? -1 : ret(syscall6(SYS_file_chown, 0, k, u, g, 0, 0));
}

int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	FENCED(fchownat(dirfd, path, uid, gid, flags));
	char abs[PATH_MAX];
	long g, u = owner(uid, gid, &g);
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return ret(-EINVAL);
	if ((flags & AT_EMPTY_PATH) && path && !path[0]) {
		if (dirfd != AT_FDCWD)
			return fchown(dirfd, uid, gid);
		path = ".";                  /* (the working directory itself) */
	}
	if (abs_path_at(dirfd, path, abs) < 0)
		return -1;
	return ret(syscall6(SYS_file_chown, (long)abs, 0, u, g,
			    flags & AT_SYMLINK_NOFOLLOW ? FA_NOFOLLOW : 0, 0));
}

int chown(const char *path, uid_t uid, gid_t gid)
{
	return fchownat(AT_FDCWD, path, uid, gid, 0);
}

int lchown(const char *path, uid_t uid, gid_t gid)
{
	return fchownat(AT_FDCWD, path, uid, gid, AT_SYMLINK_NOFOLLOW);
}
