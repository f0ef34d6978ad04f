/*
 * The working directory, kept here in ulib: the kernel's file calls take
 * absolute paths only (docs/files.md), so every path call first makes its
 * path absolute with abs_path (path.h). getcwd, chdir, fchdir, realpath,
 * openat and fstatat. One working directory per program (a space), shared
 * by its threads, as a process's is.
 *
 * A directory descriptor's path: open() remembers the absolute path of
 * each descriptor it makes (path_opened); a use checks that the path
 * still names the descriptor's inode, so a number closed and reused by
 * dup or pipe is never mistaken for the old directory (EBADF then).
 */
#include <anima/file.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <animart/spin.h>
#include "path.h"

#define NKNOWN MAXFILE_SPACE     /* descriptors whose paths are kept (fd.c's NFD) */

static char cwd[PATH_MAX] = "/";
static struct spin cwdlk;
static char *known[NKNOWN];      /* malloc'd absolute paths, by descriptor */
static struct spin knownlk;

/* fork (ulib/pthread/pfork.c): both locks held across the copy (0), let
   go in the parent (1) and the child (2), so a child never finds one
   another thread held (its every relative path would spin for good).
   Leaf locks: nothing is taken under them. */
void __cwd_fork(int phase);
void __cwd_fork(int phase)
{
	if (phase == 0) {
		spin_lock(&cwdlk);
		spin_lock(&knownlk);
	} else {
		spin_unlock(&knownlk);
		spin_unlock(&cwdlk);
	}
}

static int fail(int e)
{
	errno = e;
	return -1;
}

/* Append path's components to out, an absolute path without a trailing
   "/" (but "/" itself) of n bytes; "." stays, ".." goes up one. */
static int join(char *out, size_t n, const char *p)
{
	int dir = 0;                     /* the last component asks for a directory */
	for (;;) {
		while (*p == '/')
			p++, dir = 1;
		if (!*p)
			break;
		const char *e = strchrnul(p, '/');
		size_t k = (size_t)(e - p);
		dir = 0;
		if (k == 1 && p[0] == '.')
			dir = 1;
		else if (k == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 1 && out[n - 1] != '/')
				n--;
			if (n > 1)
				n--;             /* the "/" before the removed name */
			dir = 1;
		} else {
			if (n + 1 + k >= PATH_MAX)
				return fail(ENAMETOOLONG);
			if (n > 1)
				out[n++] = '/';
			memcpy(out + n, p, k);
			n += k;
		}
		p = e;
	}
	if (dir && n > 1) {
		if (n + 1 >= PATH_MAX)
			return fail(ENAMETOOLONG);
		out[n++] = '/';
	}
	out[n] = 0;
	return 0;
}

/* fd's directory path into out, checked against the inode (header). */
static int dir_path(int fd, char *out)
{
	struct stat fs, ps;
	if (fstat(fd, &fs) < 0)
		return -1;
	if (!S_ISDIR(fs.st_mode))
		return fail(ENOTDIR);
	int ok = 0;
	spin_lock(&knownlk);
	if (fd >= 0 && fd < NKNOWN && known[fd]) {
		strcpy(out, known[fd]);
		ok = 1;
	}
	spin_unlock(&knownlk);
	if (!ok || stat(out, &ps) < 0 || ps.st_ino != fs.st_ino)
		return fail(EBADF);
	return 0;
}

int abs_path_at(int dirfd, const char *path, char *out)
{
	if (!path)
		return fail(EFAULT);
	if (!*path)
		return fail(ENOENT);
	if (strnlen(path, PATH_MAX) == PATH_MAX)
		return fail(ENAMETOOLONG);
	if (path[0] == '/')
		strcpy(out, "/");
	else if (dirfd == AT_FDCWD) {
		spin_lock(&cwdlk);
		strcpy(out, cwd);
		spin_unlock(&cwdlk);
	} else if (dir_path(dirfd, out) < 0)
		return -1;
	size_t n = strlen(out);
	if (n > 1 && out[n - 1] == '/')
		out[--n] = 0;
	if (join(out, n, path) < 0)
		return -1;
	if (!strncmp(out, "/dev/null/", 10))
		return fail(ENOTDIR);        /* /dev/null is no directory */
	return 0;
}

int abs_path(const char *path, char *out)
{
	return abs_path_at(AT_FDCWD, path, out);
}

void path_opened(int fd, const char *abs)
{
	if (fd < 0 || fd >= NKNOWN)
		return;
	char *p = strdup(abs), *old;     /* (none: openat on fd fails EBADF) */
	spin_lock(&knownlk);
	old = known[fd];
	known[fd] = p;
	spin_unlock(&knownlk);
	free(old);
}

/* abs, a directory's path, as the working directory. */
static void set_cwd(const char *abs)
{
	size_t n = strlen(abs);
	spin_lock(&cwdlk);
	memcpy(cwd, abs, n + 1);
	if (n > 1 && cwd[n - 1] == '/')
		cwd[n - 1] = 0;
	spin_unlock(&cwdlk);
}

/* abs names a directory ("/" always does, even without a disk). */
static int is_dir(const char *abs)
{
	struct stat st;
	if (!strcmp(abs, "/"))
		return 0;
	if (stat(abs, &st) < 0)
		return -1;
	return S_ISDIR(st.st_mode) ? 0 : fail(ENOTDIR);
}

int __access(const char *path, int mode, int eff);   /* nofile.c */

int chdir(const char *path)
{
	char abs[PATH_MAX];
	if (abs_path(path, abs) < 0 || is_dir(abs) < 0 || __access(abs, X_OK, 1) < 0)
		return -1;                   /* (search permission, the effective ids: kernel/perm.c) */
	set_cwd(abs);
	return 0;
}

int fchdir(int fd)
{
	char abs[PATH_MAX];
	if (dir_path(fd, abs) < 0)
		return -1;
	set_cwd(abs);
	return 0;
}

/* glibc's getcwd: buf null allocates size bytes, or as many as needed
   when size is 0. */
char *getcwd(char *buf, size_t size)
{
	char now[PATH_MAX];
	spin_lock(&cwdlk);
	strcpy(now, cwd);
	spin_unlock(&cwdlk);
	size_t need = strlen(now) + 1;
	if (buf && size == 0) {
		errno = EINVAL;
		return 0;
	}
	if (size && size < need) {
		errno = ERANGE;
		return 0;
	}
	if (!buf && !(buf = malloc(size ? size : need)))
		return 0;                /* ENOMEM */
	return memcpy(buf, now, need);
}

char *get_current_dir_name(void)
{
	return getcwd(0, 0);
}

/* The absolute path of an existing file (no links to resolve); resolved
   null: malloc'd. */
char *realpath(const char *path, char *resolved)
{
	char abs[PATH_MAX];
	struct stat st;
	if (abs_path(path, abs) < 0)
		return 0;
	if (strcmp(abs, "/") && stat(abs, &st) < 0)
		return 0;
	size_t n = strlen(abs);
	if (n > 1 && abs[n - 1] == '/')
		abs[--n] = 0;
	if (!resolved)
		return strdup(abs);
	return memcpy(resolved, abs, n + 1);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = flags & O_CREAT ? va_arg(ap, int) : 0;
	va_end(ap);
	char abs[PATH_MAX];
	if (abs_path_at(dirfd, path, abs) < 0)
		return -1;
	return open(abs, flags, mode);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flag)
{
	if ((flag & AT_EMPTY_PATH) && path && !*path)
		return dirfd == AT_FDCWD ? stat(".", st) : fstat(dirfd, st);
	if (flag & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return fail(EINVAL);
	char abs[PATH_MAX];
	if (abs_path_at(dirfd, path, abs) < 0)
		return -1;
	return flag & AT_SYMLINK_NOFOLLOW ? lstat(abs, st) : stat(abs, st);
}
