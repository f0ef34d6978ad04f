/*
 * File descriptors (docs/libc.md): a table of NFD entries, each the
 * console's input (always at end of file), the console's output,
 * /dev/null, or a kernel descriptor: one end of a pipe (the kernel's,
 * kernel/pipe.c; ulib/libc/pipe.c waits on it, linked into every
 * program: one that never calls pipe() still gets pipe ends from its
 * parent across exec, as a shell's pipeline gives them) or a file on
 * the disk. 0 starts as the input, 1 and 2 as the output; dup,
 * dup2, dup3 and fcntl(F_DUPFD) copy an entry, open("/dev/null") and
 * pipe make them, close frees one. stdio's stdout and stderr write to what fds 1 and 2
 * are (stdio.c: __fd_out), so dup2 of /dev/null onto 1 silences printf.
 * A file on the disk (FD_FILE, opened by nofile.c's open) is a kernel
 * descriptor (<anima/file.h>); descriptors copied by dup share it, and
 * the last one closed closes it (kref).
 */
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <animart/spin.h>
#include <animart/sys.h>
#include <animalib/ulib.h>
#include <anima/file.h>
#include <animart/fence.h>
#include "nocancel.h"
#include "../pthread/pwait.h"

#define NFD MAXFILE_SPACE   /* open descriptors at most (1024: sysconf(_SC_OPEN_MAX)), the kernel's */
#define CHUNK 4096      /* bytes per SYS_cputs (the kernel takes at most 64 KiB) */

enum { FD_FREE, FD_IN, FD_OUT, FD_NULL, FD_PIPE_R, FD_PIPE_W, FD_FILE };

struct fdent {
	unsigned char kind;      /* FD_* */
	unsigned char cloexec;   /* FD_CLOEXEC: exec does not keep it */
	int flags;               /* O_ACCMODE part and O_APPEND/O_NONBLOCK, for F_GETFL */
	int kfd;                 /* FD_FILE, FD_PIPE_*: the kernel's descriptor */
};
static int kref[MAXFILE_SPACE];      /* our descriptors per kernel descriptor */

/* ulib/libc/pipe.c (not weak: an exec'd program that never called pipe()
   read its inherited pipe through a null pointer, killed at rip 0) */
void __pipe_changed(void);
void __pipe_ready(int kfd, int w, int *ready, int *hup, int *shared);
ssize_t __pipe_read(int kfd, void *buf, size_t n, int nonblock);
ssize_t __pipe_write(int kfd, const void *buf, size_t n, int nonblock);

/* ulib/libc/flock.c */
int __lock_fcntl(int fd, int cmd, struct flock *fl);
void __lock_closed(int kfd);

static int is_pipe(struct fdent e)
{
	return e.kind == FD_PIPE_R || e.kind == FD_PIPE_W;
}

static int is_kernel(struct fdent e)
{
	return e.kind == FD_FILE || is_pipe(e);
}

static struct fdent fds[NFD] = {
	[0] = { FD_IN, 0, O_RDONLY }, [1] = { FD_OUT, 0, O_WRONLY }, [2] = { FD_OUT, 0, O_WRONLY },
};
static struct spin fdlk;

/* fork (ulib/pthread/pfork.c): the table's lock held across the copy
   (0), let go in the parent (1) and the child (2). A child made while
   another thread held it found it taken for good: credstorm's child
   spun in its exec's __fd_keep, its parent's wait hung. (A leaf lock:
   nothing is taken under it, so fork may take it last.) */
void __fd_fork(int phase);
void __fd_fork(int phase)
{
	if (phase == 0)
		spin_lock(&fdlk);
	else
		spin_unlock(&fdlk);
}

static int fail(int e)
{
	errno = e;
	return -1;
}

/* A system call's result as a libc one: -1 and errno for an error. */
static long __fd_ret(long r)
{
	return r < 0 ? fail((int)-r) : r;
}

/* fd's entry, or 0 (EBADF set) if it is not open. (A kernel
   descriptor's call holds its open file in the kernel meanwhile.) */
static struct fdent get(int fd)
{
	struct fdent e = { 0 };
	if (fd >= 0 && fd < NFD) {
		spin_lock(&fdlk);
		e = fds[fd];
		spin_unlock(&fdlk);
	}
	if (e.kind == FD_FREE)
		errno = EBADF;
	return e;
}

static void put(struct fdent e)
{
	(void)e;
}

/* e's descriptor is gone (closed, or replaced by dup2/dup3). A pipe's
   waiters in this program look again (an end of file, EPIPE, or the
   pipe no longer shared). */
static void gone(struct fdent e)
{
	if (is_kernel(e) && __atomic_sub_fetch(&kref[e.kfd], 1, __ATOMIC_ACQ_REL) == 0)
		syscall1(SYS_file_close, e.kfd);
	else if (e.kind == FD_FILE)
		__lock_closed(e.kfd);    /* POSIX: any close drops the process's record locks */
	if (is_pipe(e))
		__pipe_changed();
}

/* e copied into another descriptor; fdlk held. */
static void copied(struct fdent e)
{
	if (is_kernel(e))
		__atomic_add_fetch(&kref[e.kfd], 1, __ATOMIC_ACQ_REL);
}

/* stdio.c: is fd (1 or 2) the console's output now? A plain load: the
   entry is one byte. */
int __fd_out(int fd)
{
	return __atomic_load_n(&fds[fd].kind, __ATOMIC_RELAXED) == FD_OUT;
}

/* select.c, mman.c: what fd is: 0 (not open, errno EBADF), 'i' (input
   at end of file), 'o' (console output), 'n' (/dev/null: readable as
   end of file if opened for reading, writable if for writing), 'p' (a
   pipe's end: readable or writable now without waiting, and *hup if
   the other end is closed), 'P' (the same, of a pipe another process
   also names: its changes come from outside the program). */
int __fd_kind(int fd, int *readable, int *writable, int *hup)
{
	struct fdent e = get(fd);
	int acc = e.flags & O_ACCMODE;
	*readable = e.kind == FD_IN || e.kind == FD_FILE || (e.kind == FD_NULL && acc != O_WRONLY);
	*writable = e.kind == FD_OUT || (e.kind == FD_NULL && acc != O_RDONLY);
	*hup = e.kind == FD_IN;
	if (is_pipe(e)) {
		int w = e.kind == FD_PIPE_W, shared = 0;
		__pipe_ready(e.kfd, w, w ? writable : readable, hup, &shared);
		return shared ? 'P' : 'p';
	}
	return e.kind == FD_FREE ? 0 : e.kind == FD_IN ? 'i' : e.kind == FD_OUT ? 'o' : 'n';   /* (a file: always ready, as 'n') */
}

/* select.c: fd's kernel descriptor if it is a pipe's end (*w: the
   write end), else -1. */
int __fd_pipe_end(int fd, int *w)
{
	struct fdent e = get(fd);
	*w = e.kind == FD_PIPE_W;
	return is_pipe(e) ? e.kfd : -1;
}

/* rlimit.c: RLIMIT_NOFILE's soft limit, at most NFD. */
int __nofile_limit(void);

/* Put e at the lowest free fd >= from, below RLIMIT_NOFILE; fdlk held. */
static int place(struct fdent e, int from)
{
	int lim = __nofile_limit();
	for (int fd = from; fd < lim && fd < NFD; fd++)
		if (fds[fd].kind == FD_FREE) {
			fds[fd] = e;
			return fd;
		}
	return fail(EMFILE);
}

/* pipe.c: the two ends of a new kernel pipe (its descriptors k) at the
   lowest free fds, or -1 (EMFILE: k's own to close). */
int __fd_pipe(const int k[2], int flags, int fd[2]);
int __fd_pipe(const int k[2], int flags, int fd[2])
{
	int fl = flags & O_NONBLOCK, ce = !!(flags & O_CLOEXEC);
	spin_lock(&fdlk);
	int r = place((struct fdent){ FD_PIPE_R, (unsigned char)ce, O_RDONLY | fl, k[0] }, 0);
	int w = r < 0 ? -1 : place((struct fdent){ FD_PIPE_W, (unsigned char)ce, O_WRONLY | fl, k[1] }, 0);
	if (r >= 0 && w < 0)
		fds[r] = (struct fdent){ 0 };
	if (w >= 0)
		kref[k[0]] = kref[k[1]] = 1;
	spin_unlock(&fdlk);
	if (w < 0)
		return -1;
	fd[0] = r, fd[1] = w;
	return 0;
}

/* A file's write (off < 0: at the descriptor's offset), repeated while
   the kernel writes short (it stops at a disk wait once bytes are in). */
/* An append the kernel ended short (it waited for the disk) kept the
   room for all n bytes at the end (kernel/ext2w.c): the rest goes
   there, and not after another process's append (O_APPEND writes are
   atomic). SYS_file_write_where says where that room is: the open
   file's offset cannot, as a fork's child shares it and its appends
   move it meanwhile (the rest then went after the child's record and
   the room stayed zeros). The offset moves past it all. */
static ssize_t __file_write(int kfd, const void *buf, size_t n, off_t off, int append)
{
	size_t done = 0;
	long r = 0;
	int moved = 0;
	while (done < n) {
		const char *p = (const char *)buf + done;
		uint64_t at = 0;
		if (off >= 0)
			r = syscall4(SYS_file_pwrite, kfd, p, n - done, off + (off_t)done);
		else if (append)
			r = syscall4(SYS_file_write_where, kfd, p, n - done, &at);
		else
			r = syscall3(SYS_file_write, kfd, p, n - done);
		if (r <= 0)
			break;
		if (off < 0 && append && done + (size_t)r < n) {
			off = (off_t)at - (off_t)done;
			moved = 1;
		}
		done += (size_t)r;
	}
	if (moved)
		syscall3(SYS_file_lseek, kfd, off + (off_t)done, SEEK_SET);
	if (r < 0 && !done)
		return fail((int)-r);
	return (ssize_t)done;
}

/* read, write, pread, pwrite and close are cancellation points (POSIX):
   a cancel pending acts as they begin (and in a pipe's wait, pipe.c);
   the library's own calls use the _nocancel forms (nocancel.h). */
ssize_t write(int fd, const void *buf, size_t n)
{
	pcancel_point();
	return __write_nocancel(fd, buf, n);
}

ssize_t __write_nocancel(int fd, const void *buf, size_t n)
{
	FENCED(__write_nocancel(fd, buf, n));
	struct fdent e = get(fd);
	if (is_pipe(e)) {
		ssize_t r = e.kind == FD_PIPE_W ? __pipe_write(e.kfd, buf, n, e.flags & O_NONBLOCK)
						: fail(EBADF);
		put(e);
		return r;
	}
	int acc = e.flags & O_ACCMODE;
	if (e.kind == FD_NULL && acc != O_RDONLY)
		return (ssize_t)n;       /* discarded */
	if (e.kind == FD_FILE)
		return __file_write(e.kfd, buf, n, -1, e.flags & O_APPEND);
	if (e.kind != FD_OUT)
		return fail(EBADF);
	/* Unbuffered, like the system call: stdout's pending text goes
	   first, so output keeps the order the program wrote it in. */
	fflush(stdout);
	const char *p = buf;
	size_t left = n;
	while (left) {
		long r = sys_cputs(p, left < CHUNK ? left : CHUNK);
		if (sys_failed(r)) {
			errno = (int)-r;
			return n == left ? -1 : (ssize_t)(n - left);
		}
		if (r == 0)
			break;
		p += r, left -= (size_t)r;
	}
	return (ssize_t)(n - left);
}

ssize_t read(int fd, void *buf, size_t n)
{
	pcancel_point();
	return __read_nocancel(fd, buf, n);
}

ssize_t __read_nocancel(int fd, void *buf, size_t n)
{
	FENCED(__read_nocancel(fd, buf, n));
	struct fdent e = get(fd);
	if (is_pipe(e)) {
		ssize_t r = e.kind == FD_PIPE_R ? __pipe_read(e.kfd, buf, n, e.flags & O_NONBLOCK)
						: fail(EBADF);
		put(e);
		return r;
	}
	if (e.kind == FD_IN || (e.kind == FD_NULL && (e.flags & O_ACCMODE) != O_WRONLY))
		return 0;                /* end of file */
	if (e.kind == FD_FILE)
		return __fd_ret(syscall3(SYS_file_read, e.kfd, buf, n));
	return fail(EBADF);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	pcancel_point();
	FENCED(pread(fd, buf, n, off));
	struct fdent e = get(fd);
	put(e);
	if (e.kind == FD_FILE)
		return __fd_ret(syscall4(SYS_file_pread, e.kfd, buf, n, off));
	return e.kind == FD_FREE ? -1 : fail(ESPIPE);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	pcancel_point();
	FENCED(pwrite(fd, buf, n, off));
	struct fdent e = get(fd);
	put(e);
	if (e.kind == FD_FILE) {
		if (off < 0)
			return fail(EINVAL);
		return n ? __file_write(e.kfd, buf, n, off, 0) : 0;
	}
	return e.kind == FD_FREE ? -1 : fail(ESPIPE);
}

/* dirent.c: fd's kernel descriptor if it is a file on the disk, else -1. */
int __fd_kfd(int fd);
int __fd_kfd(int fd)
{
	struct fdent e = get(fd);
	put(e);
	return e.kind == FD_FILE ? e.kfd : -1;
}

/* flock.c, fmode.c: fd's kernel descriptor, or -1 with errno set: EBADF
   for no descriptor, EINVAL for one that is no file on the disk (a pipe,
   the console: POSIX allows such calls there, Anima does not). */
int __fd_kfd_or_err(int fd);
int __fd_kfd_or_err(int fd)
{
	int k = __fd_kfd(fd);
	if (k < 0 && fcntl(fd, F_GETFD) >= 0)
		errno = EINVAL;                 /* (else fcntl set EBADF) */
	return k;
}

/* fmode.c, chown.c: the kernel descriptor of fd's file or pipe (fchmod of
   a pipe succeeds on Linux), or -1 with errno EBADF, or EINVAL for the
   console and /dev/null. */
int __fd_kfd_or_pipe(int fd);
int __fd_kfd_or_pipe(int fd)
{
	struct fdent e = get(fd);
	put(e);
	if (e.kind != FD_FREE && !is_kernel(e))
		errno = EINVAL;
	return is_kernel(e) ? e.kfd : -1;
}

/* nofile.c's open of a path other than /dev/null: a file on the disk. */
mode_t __umask_now(void);                /* nofile.c */
int __open_file(const char *path, int flags, mode_t mode);
int __open_file(const char *path, int flags, mode_t mode)
{
	FENCED(__open_file(path, flags, mode));
	if (flags & O_CREAT)
		mode &= ~__umask_now();
	long k = syscall3(SYS_file_open, path, flags, mode);
	if (k < 0)
		return fail((int)-k);
	struct fdent e = { FD_FILE, !!(flags & O_CLOEXEC), flags & (O_ACCMODE | O_APPEND), (int)k };
	kref[k] = 1;
	spin_lock(&fdlk);
	int r = place(e, 0);
	spin_unlock(&fdlk);
	if (r < 0) {
		kref[k] = 0;
		syscall1(SYS_file_close, k);
	}
	return r;
}

/* struct kstat (the kernel's) as struct stat. */
void __kstat_to_stat(const struct kstat *k, struct stat *st);
void __kstat_to_stat(const struct kstat *k, struct stat *st)
{
	memset(st, 0, sizeof *st);
	st->st_dev = 1;
	st->st_ino = k->ino;
	st->st_mode = k->mode;
	st->st_nlink = k->nlink;
	st->st_uid = k->uid;
	st->st_gid = k->gid;
	st->st_size = (off_t)k->size;
	st->st_blksize = k->blksize;
	st->st_blocks = (blkcnt_t)k->blocks;
	st->st_atim = (struct timespec){ k->atime, k->atime_ns };
	st->st_mtim = (struct timespec){ k->mtime, k->mtime_ns };
	st->st_ctim = (struct timespec){ k->ctime, k->ctime_ns };
}

int close(int fd)
{
	pcancel_point();                 /* (acts before: fd stays open) */
	return __close_nocancel(fd);
}

int __close_nocancel(int fd)
{
	FENCED(__close_nocancel(fd));
	if (fd < 0 || fd >= NFD)
		return fail(EBADF);
	spin_lock(&fdlk);
	struct fdent was = fds[fd];
	fds[fd] = (struct fdent){ 0 };
	spin_unlock(&fdlk);
	gone(was);
	return was.kind == FD_FREE ? fail(EBADF) : 0;
}

int dup(int fd)
{
	FENCED(dup(fd));
	if (fd < 0 || fd >= NFD)
		return fail(EBADF);
	spin_lock(&fdlk);
	struct fdent e = fds[fd];
	e.cloexec = 0;
	int r = e.kind == FD_FREE ? fail(EBADF) : place(e, 0);
	if (r >= 0)
		copied(e);
	spin_unlock(&fdlk);
	return r;
}

int dup3(int old, int new, int flags)
{
	FENCED(dup3(old, new, flags));
	if (old == new || (flags & ~O_CLOEXEC))
		return fail(EINVAL);
	if (old < 0 || old >= NFD || new < 0 || new >= NFD || new >= __nofile_limit())
		return fail(EBADF);
	spin_lock(&fdlk);
	struct fdent e = fds[old], was = { 0 };
	if (e.kind != FD_FREE) {
		e.cloexec = !!(flags & O_CLOEXEC);
		was = fds[new];
		fds[new] = e;            /* (closes what new was) */
		copied(e);
	}
	spin_unlock(&fdlk);
	gone(was);
	return e.kind == FD_FREE ? fail(EBADF) : new;
}

int dup2(int old, int new)
{
	if (old == new) {            /* POSIX: new if old is open, else EBADF */
		struct fdent e = get(old);
		put(e);
		return e.kind == FD_FREE ? -1 : new;
	}
	return dup3(old, new, 0);
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);     /* (read whether given or not: an int slot either way) */
	va_end(ap);
	struct fdent e = get(fd);
	if (e.kind == FD_FREE)
		return -1;
	put(e);                          /* (only its flags are read below) */
	switch (cmd) {
	case F_GETFD:
		return e.cloexec ? FD_CLOEXEC : 0;
	case F_SETFD:
		spin_lock(&fdlk);
		fds[fd].cloexec = (arg & FD_CLOEXEC) != 0;
		spin_unlock(&fdlk);
		return 0;
	case F_GETFL:                    /* O_APPEND is the open file's (the kernel's) */
		if (e.kind == FD_FILE) {
			long k = syscall2(SYS_getinfo, INFO_FILE_FLAGS, e.kfd);
			if (k >= 0)
				return (e.flags & ~O_APPEND) | ((int)k & O_APPEND);
		}
		return e.flags;
	case F_SETFL: {                  /* O_APPEND, O_NONBLOCK (a pipe's waits) */
		if (e.kind == FD_FILE) {     /* on the open file: dups and children see it */
			long r = syscall2(SYS_file_setfl, e.kfd, (int)arg & O_APPEND);
			if (r < 0)
				return fail((int)-r);
		}
		spin_lock(&fdlk);
		fds[fd].flags = (fds[fd].flags & O_ACCMODE) | ((int)arg & (O_APPEND | O_NONBLOCK));
		for (int i = 0; i < NFD && e.kind == FD_FILE; i++)   /* its dups' writes append too */
			if (fds[i].kind == FD_FILE && fds[i].kfd == e.kfd)
				fds[i].flags = (fds[i].flags & ~O_APPEND) | ((int)arg & O_APPEND);
		spin_unlock(&fdlk);
		return 0;
	}
	case F_GETLK:
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_GETLK:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		return __lock_fcntl(fd, cmd, (struct flock *)arg);
	case F_DUPFD:
	case F_DUPFD_CLOEXEC: {
		if (arg < 0 || arg >= NFD || arg >= __nofile_limit())
			return fail(EINVAL);
		spin_lock(&fdlk);
		e = fds[fd];
		e.cloexec = cmd == F_DUPFD_CLOEXEC;
		int r = e.kind == FD_FREE ? fail(EBADF) : place(e, (int)arg);
		if (r >= 0)
			copied(e);
		spin_unlock(&fdlk);
		return r;
	}
	default:
		return fail(EINVAL);
	}
}

/* Only /dev/null exists (nofile.c's open fails for every other path). */
int __open_devnull(int flags);
int __open_devnull(int flags)
{
	if (flags & O_DIRECTORY)
		return fail(ENOTDIR);
	if ((flags & O_ACCMODE) == O_ACCMODE)
		return fail(EINVAL);
	struct fdent e = { FD_NULL, !!(flags & O_CLOEXEC), flags & (O_ACCMODE | O_APPEND | O_NONBLOCK), 0 };
	spin_lock(&fdlk);
	int r = place(e, 0);
	spin_unlock(&fdlk);
	return r;
}

int getdtablesize(void)
{
	return NFD;
}

int isatty(int fd)
{
	struct fdent e = get(fd);
	put(e);
	if (e.kind == FD_IN || e.kind == FD_OUT)
		return 1;
	if (e.kind != FD_FREE)
		errno = ENOTTY;
	return 0;
}

off_t lseek(int fd, off_t off, int whence)
{
	FENCED(lseek(fd, off, whence));
	struct fdent e = get(fd);
	put(e);
	if (e.kind == FD_FREE)
		return -1;
	if (e.kind == FD_NULL)
		return 0;                /* as Linux's /dev/null */
	if (e.kind == FD_FILE)
		return __fd_ret(syscall3(SYS_file_lseek, e.kfd, off, whence));
	return fail(ESPIPE);
}

int fstat(int fd, struct stat *st)
{
	FENCED(fstat(fd, st));
	struct fdent e = get(fd);
	if (e.kind == FD_FREE)
		return -1;
	if (is_kernel(e)) {              /* (a pipe's: S_IFIFO, its bytes waiting) */
		struct kstat k;
		long r = syscall2(SYS_file_fstat, e.kfd, &k);
		if (r < 0)
			return fail((int)-r);
		__kstat_to_stat(&k, st);
		return 0;
	}
	memset(st, 0, sizeof *st);
	st->st_mode = e.kind == FD_NULL ? S_IFCHR | 0666 : S_IFCHR | 0620;   /* a terminal, as isatty says */
	st->st_nlink = 1;
	st->st_blksize = e.kind == FD_NULL ? 4096 : 1024;
	return 0;
}

/* ulib's O_* are the kernel's FO_* (<anima/file.h>). */
_Static_assert(O_ACCMODE == FO_ACCMODE && O_CREAT == FO_CREAT && O_EXCL == FO_EXCL &&
	       O_TRUNC == FO_TRUNC && O_APPEND == FO_APPEND && O_DIRECTORY == FO_DIRECTORY, "O_*");

/* exec (ulib/libc/exec.c): keep[i] is the kernel descriptor that our
   descriptor i becomes in the new program, for each one without
   FD_CLOEXEC (-1 for the rest): a file's or a pipe's own, or for the
   console and /dev/null one made now (SYS_file_special), unless it is
   what the new program has there anyway (0 the input, 1 and 2 the
   output). __fd_unkeep closes those made if the exec failed. */
static uint64_t made[NFD / 64];      /* kernel descriptors __fd_keep made (a bitmap) */

static long special(struct fdent e, int i)
{
	if ((e.kind == FD_IN && i == 0) || (e.kind == FD_OUT && (i == 1 || i == 2)))
		return -1;
	int k = e.kind == FD_IN ? FK_CONS_IN : e.kind == FD_OUT ? FK_CONS_OUT : FK_NULL;
	long r = syscall2(SYS_file_special, k, e.flags & O_ACCMODE);
	if (r >= 0)
		made[r / 64] |= 1UL << (r % 64);
	return r;
}

/* The kernel's open descriptors, a bit each (INFO_FILES, word by word):
   only the words that hold any (INFO_FILES -1), so a program with none
   asks once, not NFD / 64 times. */
static int kernel_open(uint64_t open[NFD / 64])
{
	long n = syscall2(SYS_getinfo, INFO_FILES, -1);
	for (int w = 0; w < NFD / 64; w++)
		open[w] = w < n ? (uint64_t)syscall2(SYS_getinfo, INFO_FILES, w) : 0;
	return n < 0 ? 0 : (int)n;
}

/* exec (exec.c): what the new image's descriptor i is, keep[i] (-1:
   none); returns one past the highest kept (the part of keep the kernel
   needs: the rest is -1). */
int __fd_keep(int16_t keep[MAXFILE_SPACE]);
int __fd_keep(int16_t keep[MAXFILE_SPACE])
{
	uint64_t open[NFD / 64];         /* (a fork's child has its parent's) */
	struct fdent part[64];
	int top = 0;
	kernel_open(open);
	memset(made, 0, sizeof made);
	for (int i = 0; i < NFD; i++) {
		if (i % 64 == 0) {       /* (64 entries at a time: a lock per entry cost 1,024) */
			spin_lock(&fdlk);
			memcpy(part, &fds[i], sizeof part);
			spin_unlock(&fdlk);
		}
		struct fdent e = part[i % 64];
		keep[i] = -1;
		if (e.kind == FD_FREE || e.cloexec)
			continue;
		if (is_kernel(e))
			keep[i] = open[e.kfd / 64] >> (e.kfd % 64) & 1 ? (int16_t)e.kfd : -1;
		else
			keep[i] = (int16_t)special(e, i);
		top = keep[i] >= 0 ? i + 1 : top;
	}
	return top;
}

void __fd_unkeep(void);
void __fd_unkeep(void)
{
	for (int k = 0; k < NFD; k++)
		if (made[k / 64] >> (k % 64) & 1)
			syscall1(SYS_file_close, k);
	memset(made, 0, sizeof made);
}

/* Start-up (start.c): the descriptors an exec kept are the kernel's of
   the same numbers (INFO_FILES); a new program has none, and this is
   one system call (INFO_FILES -1: no word holds one). The console's and /dev/null's become ours again
   (their kernel descriptors only carried them across). */
void __fd_inherit(void);
void __fd_inherit(void)
{
	uint64_t open[NFD / 64];
	int n = kernel_open(open) * 64;  /* (the descriptors past n are not open) */
	for (int i = 0; i < n; i++) {
		long fl = open[i / 64] >> (i % 64) & 1 ? syscall2(SYS_getinfo, INFO_FILE_FLAGS, i) : -1;
		long k = fl >= 0 ? syscall2(SYS_getinfo, INFO_FILE_KIND, i) : -1;
		if (k < 0)
			continue;
		int acc = (int)fl & (O_ACCMODE | O_APPEND);
		if (k == FK_FILE || k == FK_PIPE_R || k == FK_PIPE_W) {
			int kind = k == FK_FILE ? FD_FILE : k == FK_PIPE_R ? FD_PIPE_R : FD_PIPE_W;
			fds[i] = (struct fdent){ (unsigned char)kind, 0, acc, i };
			kref[i] = 1;
			continue;
		}
		fds[i] = (struct fdent){ k == FK_CONS_IN ? FD_IN : k == FK_CONS_OUT ? FD_OUT : FD_NULL, 0, acc, 0 };
		syscall1(SYS_file_close, i);
	}
}
