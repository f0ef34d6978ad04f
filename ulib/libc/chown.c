/*
 * chown, fchown, lchown, fchownat. Owners are not changed: the kernel
 * has no call that writes an inode's uid and gid. A call that asks for
 * the owner and group the file has already (or -1, "unchanged") succeeds,
 * as it would on Linux; any other gets EPERM rather than a success that
 * did nothing. Every file a program makes here is root's (0, 0), so
 * chown(path, 0, 0) and chown(path, -1, -1) work.
 */
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>
#include "path.h"

static int same(int r, const struct stat *st, uid_t uid, gid_t gid)
{
	if (r < 0)
		return -1;
	if ((uid != (uid_t)-1 && uid != st->st_uid) || (gid != (gid_t)-1 && gid != st->st_gid)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int chown(const char *path, uid_t uid, gid_t gid)
{
	struct stat st;
	return same(stat(path, &st), &st, uid, gid);
}

int lchown(const char *path, uid_t uid, gid_t gid)
{
	struct stat st;
	return same(lstat(path, &st), &st, uid, gid);
}

int fchown(int fd, uid_t uid, gid_t gid)
{
	struct stat st;
	return same(fstat(fd, &st), &st, uid, gid);
}

int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	struct stat st;
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) {
		errno = EINVAL;
		return -1;
	}
	return same(fstatat(dirfd, path, &st, flags), &st, uid, gid);
}
