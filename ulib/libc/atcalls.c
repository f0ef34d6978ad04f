/*
 * The *at forms of the path calls that write: mkdirat, unlinkat,
 * renameat (renameat2 with flags 0) and faccessat. As openat and
 * fstatat (cwd.c): a relative path starts at dirfd's directory
 * (AT_FDCWD: the working directory), made absolute by abs_path_at, then
 * the plain call does the work.
 */
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <errno.h>
#include <sys/stat.h>
#include "path.h"

static int fail(int e)
{
	errno = e;
	return -1;
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
	char abs[PATH_MAX];
	return abs_path_at(dirfd, path, abs) < 0 ? -1 : mkdir(abs, mode);
}

int unlinkat(int dirfd, const char *path, int flags)
{
	char abs[PATH_MAX];
	if (flags & ~AT_REMOVEDIR)
		return fail(EINVAL);
	if (abs_path_at(dirfd, path, abs) < 0)
		return -1;
	return flags & AT_REMOVEDIR ? rmdir(abs) : unlink(abs);
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	char a[PATH_MAX], b[PATH_MAX];
	if (abs_path_at(fromfd, from, a) < 0 || abs_path_at(tofd, to, b) < 0)
		return -1;
	return rename(a, b);
}

/* Only flags 0: RENAME_NOREPLACE and RENAME_EXCHANGE need the kernel to
   check and rename in one step (EINVAL, as a Linux file system that
   lacks them). */
int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	if (flags)
		return fail(EINVAL);
	return renameat(fromfd, from, tofd, to);
}

int __access(const char *path, int mode, int eff);   /* nofile.c */

/* AT_EACCESS checks with the effective ids (access: the real ones);
   AT_SYMLINK_NOFOLLOW asks about a last link itself (whose mode, 0777,
   allows all). */
int faccessat(int dirfd, const char *path, int mode, int flags)
{
	char abs[PATH_MAX];
	struct stat st;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW))
		return fail(EINVAL);
	if (abs_path_at(dirfd, path, abs) < 0)
		return -1;
	if ((flags & AT_SYMLINK_NOFOLLOW) && !lstat(abs, &st) && S_ISLNK(st.st_mode))
		return mode & ~(R_OK | W_OK | X_OK) ? fail(EINVAL) : 0;
	return __access(abs, mode, (flags & AT_EACCESS) != 0);
}
