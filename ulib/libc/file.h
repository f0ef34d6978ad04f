/* FILE, private to ulib's stdio (stdio.c, stdfile.c, ffile.c, fio.c). */
#ifndef ULIB_FILE_H
#define ULIB_FILE_H

#include <stdio.h>
#include <errno.h>
#include <unistd.h>
#include <animart/sync.h>
#include "nocancel.h"

#define FS_RD  1          /* open for reading */
#define FS_WR  2          /* open for writing */
#define FS_APP 4          /* append: every write at the end (O_APPEND) */
#define FS_OWN 8          /* buf is malloc'd here (else setvbuf's, or tiny) */
#define NBACK  4          /* ungetc's pushed-back bytes at most */

struct __file {
	int fd;
	int eof, err;
	/* flockfile's recursive lock: the owning thread (0: none) and its
	   depth, over a mutex other threads wait on (stdio.c) */
	struct thread *volatile owner;
	int depth;
	struct mutex lock;
	/* Streams on descriptors (ffile.c, fio.c); stdout and stderr are
	   the console's (stdio.c) and use none of this. One buffer for
	   both ways: dir 'r', buf[pos..len) is read ahead of the
	   descriptor's offset; dir 'w', buf[0..len) waits to be written;
	   dir 0, it is empty. */
	int flags;            /* FS_* */
	int bmode;            /* _IOFBF, _IOLBF, _IONBF */
	int dir;
	unsigned char *buf;   /* 0 until the first read or write */
	size_t size, pos, len;
	unsigned char back[NBACK], tiny;   /* ungetc's bytes (last pushed last); _IONBF's buffer */
	int nback;
	struct __file *next;  /* ffile.c's list of open streams */
	/* A stream on functions (fopencookie, fmemopen, open_memstream):
	   cookied set, fd -1, and the descriptor calls go to io (fcookie.c) */
	int cookied;
	void *cookie;
	cookie_io_functions_t io;
};

/* fio.c: for ffile.c and stdio.c; f locked by the caller. */
int __ff_write(FILE *f, const char *s, size_t n);   /* 0, or EOF (err set) */
int __ff_flush(FILE *f);     /* write out what waits, give back what was read ahead */
/* stdio.c: a fork's child's f, its flockfile lock freed (pfork.c) */
void __file_forked(FILE *f);
/* ffile.c: every open stream flushed (fflush(0), exit) */
void __ff_flushall(void);
int __ff_setvbuf(FILE *f, char *buf, int mode, size_t size);
FILE *__ff_new(int fd, const char *mode);   /* a stream on fd (-1: none) with fopen's mode */

/* Read, write, lseek and close of the stream's descriptor, or of its
   functions (a cookied stream, fcookie.c). Inline, so that a program
   without such streams links nothing more for them. As glibc: no read
   function reads end of file, no write function drops the bytes (and
   says they went), no seek function is ESPIPE, no close function is 0. */
static inline ssize_t __ff_read(FILE *f, void *buf, size_t n)
{
	if (!f->cookied)
		return __read_nocancel(f->fd, buf, n);
	return f->io.read ? f->io.read(f->cookie, buf, n) : 0;
}

static inline ssize_t __ff_wr(FILE *f, const void *buf, size_t n)
{
	if (!f->cookied)
		return __write_nocancel(f->fd, buf, n);
	return f->io.write ? f->io.write(f->cookie, buf, n) : (ssize_t)n;
}

static inline off_t __ff_seek(FILE *f, off_t off, int whence)
{
	if (!f->cookied)
		return lseek(f->fd, off, whence);
	if (!f->io.seek) {
		errno = ESPIPE;
		return -1;
	}
	return f->io.seek(f->cookie, &off, whence) < 0 ? -1 : off;
}

static inline int __ff_close(FILE *f)
{
	if (!f->cookied)
		return f->fd >= 0 ? __close_nocancel(f->fd) : 0;
	f->cookied = 0;
	return f->io.close ? f->io.close(f->cookie) : 0;
}

#endif
