/*
 * Streams on descriptors (file.h): fopen, fdopen, freopen, fclose, the
 * seeks, setvbuf's part for them, and the list of open streams that
 * fflush(0) and exit flush. Reading and writing are in fio.c. A stream is
 * malloc'd with its FILE and (at its first read or write) its buffer;
 * fclose frees both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "file.h"
#include "nocancel.h"

static FILE *streams;            /* every open stream but the standard three */
static struct mutex streams_lk;  /* (taken before a stream's own lock, never after) */

/* fopen's mode as open's flags and the stream's FS_*: "r", "w" or "a",
   then any of "+", "b", "e" (O_CLOEXEC), "x" (O_EXCL). -1 if bad. */
static int parse_mode(const char *m, int *oflags, int *fs)
{
	int acc, o;
	switch (*m) {
	case 'r': acc = O_RDONLY, o = 0, *fs = FS_RD; break;
	case 'w': acc = O_WRONLY, o = O_CREAT | O_TRUNC, *fs = FS_WR; break;
	case 'a': acc = O_WRONLY, o = O_CREAT | O_APPEND, *fs = FS_WR | FS_APP; break;
	default: return -1;
	}
	for (m++; *m; m++) {
		if (*m == '+')
			acc = O_RDWR, *fs |= FS_RD | FS_WR;
		else if (*m == 'e')
			o |= O_CLOEXEC;
		else if (*m == 'x')
			o |= O_EXCL;
		else if (*m != 'b')
			return -1;
	}
	*oflags = acc | o;
	return 0;
}

/* f on fd, empty; terminals are line-buffered, everything else fully. */
static void init(FILE *f, int fd, int fs)
{
	struct __file keep = *f;         /* its lock (maybe held: freopen) and list link */
	int e = errno;
	memset(f, 0, sizeof *f);
	f->lock = keep.lock;
	f->owner = keep.owner;
	f->depth = keep.depth;
	f->next = keep.next;
	f->fd = fd;
	f->flags = fs;
	f->bmode = isatty(fd) ? _IOLBF : _IOFBF;
	errno = e;
}

static FILE *new_stream(int fd, int fs)
{
	FILE *f = calloc(1, sizeof *f);
	if (!f)
		return 0;
	init(f, fd, fs);
	umutex_lock(&streams_lk);
	f->next = streams;
	streams = f;
	umutex_unlock(&streams_lk);
	return f;
}

FILE *__ff_new(int fd, const char *mode)
{
	int o, fs;
	if (parse_mode(mode, &o, &fs) < 0) {
		errno = EINVAL;
		return 0;
	}
	return new_stream(fd, fs);
}

FILE *fopen(const char *path, const char *mode)
{
	int o, fs;
	if (parse_mode(mode, &o, &fs) < 0) {
		errno = EINVAL;
		return 0;
	}
	int fd = __open_nocancel(path, o, 0666);
	if (fd < 0)
		return 0;
	FILE *f = new_stream(fd, fs);
	if (!f)
		__close_nocancel(fd);
	return f;
}

/* POSIX: the mode may not ask for more than fd allows (EINVAL); "a" sets
   O_APPEND on it. */
FILE *fdopen(int fd, const char *mode)
{
	int o, fs, fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return 0;                /* EBADF */
	int acc = fl & O_ACCMODE;
	if (parse_mode(mode, &o, &fs) < 0 || ((fs & FS_RD) && acc == O_WRONLY) ||
	    ((fs & FS_WR) && acc == O_RDONLY)) {
		errno = EINVAL;
		return 0;
	}
	if ((fs & FS_APP) && !(fl & O_APPEND))
		fcntl(fd, F_SETFL, fl | O_APPEND);
	return new_stream(fd, fs);
}

static int console(FILE *f)
{
	return f == stdout || f == stderr;
}

/* The stream's descriptor closed and its buffer freed; f stays. */
static int release(FILE *f)
{
	int r = __ff_flush(f);
	if (__ff_close(f) < 0)
		r = EOF;
	if (f->flags & FS_OWN)
		free(f->buf);
	f->buf = 0;
	f->fd = -1;
	return r;
}

/* f on another file. The new descriptor takes the old one's number (so
   freopen on stdin makes descriptor 0 the file). stdout and stderr are
   the console's own streams and cannot be reopened (EBADF). */
FILE *freopen(const char *path, const char *mode, FILE *f)
{
	int o, fs;
	if (console(f) || !path) {
		errno = EBADF;
		return 0;
	}
	if (parse_mode(mode, &o, &fs) < 0) {
		errno = EINVAL;
		return 0;
	}
	flockfile(f);
	int old = f->fd;
	release(f);
	int fd = __open_nocancel(path, o, 0666);
	if (fd >= 0 && old >= 0 && fd != old) {
		if (dup2(fd, old) == old) {
			__close_nocancel(fd);
			fd = old;
		}
	}
	init(f, fd, fd < 0 ? 0 : fs);
	if (fd < 0)
		f->err = 1;
	funlockfile(f);
	return fd < 0 ? 0 : f;
}

/* The standard streams stay usable (their storage is stdio.c's). */
__attribute__((weak)) void __tmpfile_closed(FILE *f);

int fclose(FILE *f)
{
	if (console(f) || f == stdin)
		return fflush(f);
	umutex_lock(&streams_lk);
	FILE **pp = &streams;
	while (*pp && *pp != f)
		pp = &(*pp)->next;
	if (*pp)
		*pp = f->next;
	umutex_unlock(&streams_lk);
	flockfile(f);
	int r = release(f);
	funlockfile(f);
	if (__tmpfile_closed)
		__tmpfile_closed(f);     /* tmpfile's: its name goes now (tmpfile.c) */
	free(f);
	return r;
}

/* A fork's child (ulib/pthread/pfork.c): the list's lock and every
   listed stream's free, as glibc's child resets them. The list is not
   held across the copy (its lock is a mutex, and a flush holds it while
   it waits for each stream); a copy taken mid-change is still a list, as
   each change is one store of a linked stream. */
void __ff_forked(void);
void __ff_forked(void)
{
	memset(&streams_lk, 0, sizeof streams_lk);
	for (FILE *f = streams; f; f = f->next)
		__file_forked(f);
}

void __ff_flushall(void)
{
	umutex_lock(&streams_lk);
	for (FILE *f = streams; f; f = f->next) {
		flockfile(f);
		if (f->dir == 'w')
			__ff_flush(f);
		funlockfile(f);
	}
	umutex_unlock(&streams_lk);
	if (stdin->dir == 'r') {
		flockfile(stdin);
		__ff_flush(stdin);   /* (a file on descriptor 0: give back what was read ahead) */
		funlockfile(stdin);
	}
}

/* Before the first read or write (C): the buffer and its mode. */
int __ff_setvbuf(FILE *f, char *buf, int mode, size_t size)
{
	flockfile(f);
	__ff_flush(f);
	if (f->flags & FS_OWN)
		free(f->buf);
	f->flags &= ~FS_OWN;
	f->buf = 0;
	f->bmode = mode;
	if (buf && size && mode != _IONBF) {
		f->buf = (unsigned char *)buf;
		f->size = size;
	}
	funlockfile(f);
	return 0;
}

int fseeko(FILE *f, off_t off, int whence)
{
	if (console(f)) {
		errno = ESPIPE;
		return -1;
	}
	if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) {
		errno = EINVAL;
		return -1;
	}
	flockfile(f);
	int r = -1;      /* (the flush gives back what was read ahead, so SEEK_CUR counts from the stream's place) */
	if (__ff_seek(f, 0, SEEK_CUR) >= 0 && __ff_flush(f) == 0 && __ff_seek(f, off, whence) >= 0) {
		f->eof = 0;
		r = 0;
	}
	funlockfile(f);
	return r;
}

/* Reading: the descriptor's offset less what is read ahead; writing: plus
   what waits (in append mode written first: it lands at the end). */
off_t ftello(FILE *f)
{
	if (console(f)) {
		errno = ESPIPE;
		return -1;
	}
	flockfile(f);
	if ((f->flags & FS_APP) && f->dir == 'w')
		__ff_flush(f);
	off_t at = __ff_seek(f, 0, SEEK_CUR);
	if (at >= 0 && f->dir == 'r')
		at -= (off_t)(f->len - f->pos) + f->nback;
	else if (at >= 0 && f->dir == 'w')
		at += (off_t)f->len;
	funlockfile(f);
	return at;
}

int fseek(FILE *f, long off, int whence)
{
	return fseeko(f, off, whence);
}

long ftell(FILE *f)
{
	return ftello(f);
}

void rewind(FILE *f)
{
	fseeko(f, 0, SEEK_SET);
	clearerr(f);
}

int fgetpos(FILE *f, fpos_t *pos)
{
	off_t at = ftello(f);
	if (at < 0)
		return -1;
	*pos = at;
	return 0;
}

int fsetpos(FILE *f, const fpos_t *pos)
{
	return fseeko(f, *pos, SEEK_SET);
}
