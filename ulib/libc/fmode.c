/*
 * Modes, times and hard links on the disk (kernel/sysmode.c, sysown.c,
 * ext2w.c, ext2time.c): chmod, fchmod, fchmodat; link, linkat (with
 * AT_EMPTY_PATH: the descriptor's file); utimensat (a link's own times
 * with AT_SYMLINK_NOFOLLOW), futimens, utime, utimes, to the nanosecond. Every process is root, as the suites run on Linux: the mode
 * bits are kept and shown, never checked by reads and writes (access()
 * and exec want an x bit: nofile.c, kernel/execfile.c). With no disk
 * nothing exists (ENOENT).
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <utime.h>
#include <errno.h>
#include <limits.h>
#include <animart/sys.h>
#include <anima/file.h>
#include "path.h"
#include <animart/fence.h>

int __fd_kfd(int fd);                  /* fd.c */
int __fd_kfd_or_pipe(int fd);

static int ret(long r)
{
	if (r == -ENODEV)
		r = -ENOENT;                 /* no disk: an empty file system */
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

/* dirfd and path as an absolute path in abs; `nofollow` (AT_SYMLINK_
   NOFOLLOW): a last symbolic link is EOPNOTSUPP, as Linux's fchmodat
   (a link's mode cannot be set). */
static int at(int dirfd, const char *path, char *abs, int nofollow)
{
	struct stat st;
	if (abs_path_at(dirfd, path, abs) < 0)
		return -1;
	if (nofollow && !lstat(abs, &st) && S_ISLNK(st.st_mode)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return 0;
}

int fchmodat(int dirfd, const char *path, mode_t mode, int flag)
{
	FENCED(fchmodat(dirfd, path, mode, flag));
	char abs[PATH_MAX];
	if (flag & ~AT_SYMLINK_NOFOLLOW)
		return ret(-EINVAL);
	if (at(dirfd, path, abs, flag & AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	return ret(syscall4(SYS_file_setattr, abs, mode & 07777, 0, 0));
}

int chmod(const char *path, mode_t mode)
{
	return fchmodat(AT_FDCWD, path, mode, 0);
}

int fchmod(int fd, mode_t mode)
{
	FENCED(fchmod(fd, mode));
	int k = __fd_kfd_or_pipe(fd);         /* (a pipe's mode too, as Linux keeps it) */
	return k < 0 ? -1 : ret(syscall3(SYS_file_fsetattr, k, mode & 07777, 0));
}

int linkat(int fromfd, const char *from, int tofd, const char *to, int flag)
{
	FENCED(linkat(fromfd, from, tofd, to, flag));
	char a[PATH_MAX], b[PATH_MAX];
	if (flag & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return ret(-EINVAL);
	if ((flag & AT_EMPTY_PATH) && from && !from[0] && fromfd != AT_FDCWD) {
		int k = __fd_kfd_or_pipe(fromfd);    /* (Linux: root's CAP_DAC_READ_SEARCH) */
		if (k < 0 || abs_path_at(tofd, to, b) < 0)
			return -1;
		return ret(syscall2(SYS_file_flink, k, b));
	}
	if ((flag & AT_EMPTY_PATH) && from && !from[0])
		from = ".";                  /* (the working directory: EPERM) */
	if (abs_path_at(fromfd, from, a) < 0 || abs_path_at(tofd, to, b) < 0)
		return -1;
	return ret(syscall3(SYS_file_link, a, b, !!(flag & AT_SYMLINK_FOLLOW)));
}

/* POSIX leaves following a last link to the implementation; Linux's
   link does not follow it, nor does this. */
int link(const char *from, const char *to)
{
	return linkat(AT_FDCWD, from, AT_FDCWD, to, 0);
}

/* ts (0: both now) as the kernel's times: 0, or -1 with EINVAL. The
   kernel holds each to what the inode keeps (kernel/ext2time.c). */
static int ktimes(const struct timespec ts[2], struct ktimes *k)
{
	int64_t s[2] = { 0, 0 }, ns[2] = { KT_NOW, KT_NOW };
	for (int i = 0; ts && i < 2; i++) {
		if (ts[i].tv_nsec == UTIME_NOW)
			continue;
		if (ts[i].tv_nsec == UTIME_OMIT)
			ns[i] = KT_OMIT;
		else if (ts[i].tv_nsec < 0 || ts[i].tv_nsec >= 1000000000L) {
			errno = EINVAL;
			return -1;
		} else
			s[i] = ts[i].tv_sec, ns[i] = ts[i].tv_nsec;
	}
	*k = (struct ktimes){ s[0], s[1], ns[0], ns[1] };
	return 0;
}

int futimens(int fd, const struct timespec ts[2])
{
	FENCED(futimens(fd, ts));
	struct ktimes k;
	if (ktimes(ts, &k) < 0)
		return -1;
	int kf = __fd_kfd_or_pipe(fd);
	return kf < 0 ? -1 : ret(syscall3(SYS_file_fsetattr, kf, FA_KEEP, &k));
}

int utimensat(int dirfd, const char *path, const struct timespec ts[2], int flag)
{
	FENCED(utimensat(dirfd, path, ts, flag));
	char abs[PATH_MAX];
	struct ktimes k;
	if (flag & ~AT_SYMLINK_NOFOLLOW)
		return ret(-EINVAL);
	if (!path)
		return futimens(dirfd, ts);  /* (Linux's syscall: the descriptor itself) */
	if (ktimes(ts, &k) < 0 || at(dirfd, path, abs, 0) < 0)
		return -1;
	return ret(syscall4(SYS_file_setattr, abs, FA_KEEP, &k,
			    flag & AT_SYMLINK_NOFOLLOW ? FA_NOFOLLOW : 0));
}

int utimes(const char *path, const struct timeval tv[2])
{
	struct timespec ts[2];
	for (int i = 0; tv && i < 2; i++) {
		if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000) {
			errno = EINVAL;
			return -1;
		}
		ts[i].tv_sec = tv[i].tv_sec;
		ts[i].tv_nsec = tv[i].tv_usec * 1000;
	}
	return utimensat(AT_FDCWD, path, tv ? ts : 0, 0);
}

int utime(const char *path, const struct utimbuf *t)
{
	struct timespec ts[2] = { { t ? t->actime : 0, 0 }, { t ? t->modtime : 0, 0 } };
	return utimensat(AT_FDCWD, path, t ? ts : 0, 0);
}
