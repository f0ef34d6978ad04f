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
#include <stdarg.h>
#include <animart/sys.h>
#include <anima/file.h>
#include "path.h"
#include <animart/fence.h>
#include "nocancel.h"
#include "../pthread/pwait.h"

static int fail(int e)
{
	errno = e;
	return -1;
}

int __open_devnull(int flags);   /* fd.c */
int __open_file(const char *path, int flags, mode_t mode);
void __kstat_to_stat(const struct kstat *k, struct stat *st);

/* A cancellation point (POSIX; openat and creat come here). (openat: cwd.c) */
int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	pcancel_point();
	return __open_nocancel(path, flags, mode);
}

int __open_nocancel(const char *path, int flags, mode_t mode)
{
	char abs[PATH_MAX];
	if (abs_path(path, abs) < 0)
		return -1;
	if (!strcmp(abs, "/dev/null"))
		return __open_devnull(flags);
	int r = __open_file(abs, flags, mode);   /* fd.c: a file on the disk */
	if (r < 0 && errno == ENODEV)          /* no disk: an empty, read-only file system */
		return fail(flags & O_CREAT ? EROFS : ENOENT);
	if (r >= 0)
		path_opened(r, abs);
	return r;
}

/* access (eff 0: the real ids, as POSIX) and faccessat's AT_EACCESS
   (eff 1): the kernel checks the path and file's modes against the ids
   (kernel/perm.c). "/" and /dev/null exist with no disk too; the disk is
   writable. */
int __access(const char *path, int mode, int eff);
int __access(const char *path, int mode, int eff)
{
	char abs[PATH_MAX];
	if (abs_path(path, abs) < 0)
		return -1;
	path = abs;
	if (mode & ~(R_OK | W_OK | X_OK))
		return fail(EINVAL);
	if (!strcmp(path, "/dev/null"))
		return mode & X_OK ? fail(EACCES) : 0;
	long r = syscall3(SYS_file_access, path, mode, eff ? ACC_EFFECTIVE : 0);
	if (r == -ENODEV)                /* no disk: only "/", read-only */
		return strcmp(path, "/") ? fail(ENOENT) : mode & W_OK ? fail(EROFS) : 0;
	return r < 0 ? fail((int)-r) : 0;
}

int access(const char *path, int mode)
{
	return __access(path, mode, 0);
}

/* /dev/null, which is no file on the disk: a character device (Linux's
   1,3), as fstat of its descriptor says (fd.c). stat and lstat. */
static int stat_devnull(const char *abs, struct stat *st)
{
	if (strcmp(abs, "/dev/null"))
		return 0;
	memset(st, 0, sizeof *st);
	st->st_mode = S_IFCHR | 0666;
	st->st_nlink = 1;
	st->st_rdev = (1 << 8) | 3;
	st->st_blksize = 4096;
	return 1;
}

/* stat, and lstat (link.c): the kernel's call `sysno` on path made
   absolute, /dev/null answered here. */
int __stat_call(const char *path, struct stat *st, long sysno);
int __stat_call(const char *path, struct stat *st, long sysno)
{
	struct kstat k;
	char abs[PATH_MAX];
	if (abs_path(path, abs) < 0)
		return -1;
	if (stat_devnull(abs, st))
		return 0;
	long r = syscall2(sysno, abs, &k);
	if (r == -ENODEV)
		return fail(ENOENT);           /* no disk: nothing exists */
	if (r < 0)
		return fail((int)-r);
	__kstat_to_stat(&k, st);
	return 0;
}

int stat(const char *path, struct stat *st)
{
	FENCED(stat(path, st));
	return __stat_call(path, st, SYS_file_stat);
}

/* (lstat: link.c) */

/* (chmod: fmode.c) */

/* The file mode creation mask: open with O_CREAT (fd.c's __open_file,
   so creat, openat, mkstemp and shm_open too) and mkdir clear its bits,
   as POSIX says. Forked children copy it; an exec keeps it (exec.c tells
   the kernel, SYS_umaskexec), so an image's first use asks what its exec
   kept (INFO_UMASKEXEC: 022 for one no exec made). */
#define UNSET 0xffffffffu
static mode_t cmask = UNSET;

mode_t __umask_now(void);
mode_t __umask_now(void)
{
	mode_t m = __atomic_load_n(&cmask, __ATOMIC_RELAXED), u = UNSET;
	if (m != UNSET)
		return m;
	m = (mode_t)sys_getinfo(INFO_UMASKEXEC) & 0777;
	__atomic_compare_exchange_n(&cmask, &u, m, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return __atomic_load_n(&cmask, __ATOMIC_RELAXED);
}

mode_t umask(mode_t mask)
{
	mode_t old = __umask_now();      /* (the exec's, first) */
	while (!__atomic_compare_exchange_n(&cmask, &old, mask & 0777, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return old;
}

