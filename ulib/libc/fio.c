/*
 * Reading and writing streams on descriptors (file.h): fgetc, ungetc,
 * fgets, fread, getdelim and the write path stdio.c's fputs, fwrite and
 * fprintf reach (__ff_write). stdout and stderr are not here: they are the
 * console's (stdio.c). stdin is a stream on descriptor 0, at end of file
 * while 0 is the console's input.
 *
 * Each call holds the stream's flockfile lock throughout. The buffer
 * turns from reading to writing by giving back what was read ahead
 * (lseek back), and from writing to reading by writing out what waits,
 * so mixed reads, writes and seeks land where C says even without the
 * fflush or fseek C asks of the program between them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>
#include "file.h"

static int bad(FILE *f, int e)
{
	f->err = 1;
	errno = e;
	return EOF;
}

/* The buffer, at the first read or write: the file's block size (from
   BUFSIZ to 64 KiB), BUFSIZ for others, one byte unbuffered. */
static int get_buf(FILE *f)
{
	if (f->buf)
		return 0;
	if (f->bmode == _IONBF) {
		f->buf = &f->tiny;
		f->size = 1;
		return 0;
	}
	struct stat st;
	int e = errno;
	size_t n = fstat(f->fd, &st) == 0 && st.st_blksize > BUFSIZ && st.st_blksize <= 65536
			   ? (size_t)st.st_blksize : BUFSIZ;
	errno = e;
	if (!(f->buf = malloc(n)))
		return bad(f, ENOMEM);
	f->size = n;
	f->flags |= FS_OWN;
	return 0;
}

/* n bytes to the descriptor, all of them, or EOF with err set. */
static int write_all(FILE *f, const char *s, size_t n)
{
	while (n) {
		ssize_t w = __ff_wr(f, s, n);
		if (w <= 0)
			return bad(f, w < 0 ? errno : EIO);
		s += w, n -= (size_t)w;
	}
	return 0;
}

/* Reading from a pipe or the console, what was read ahead cannot be
   given back: it stays in the buffer, for the next read. */
int __ff_flush(FILE *f)
{
	int r = 0;
	if (f->dir == 'w' && f->len)
		r = write_all(f, (const char *)f->buf, f->len);
	else if (f->dir == 'r') {
		off_t ahead = (off_t)(f->len - f->pos) + f->nback;
		int e = errno;
		if (ahead && __ff_seek(f, -ahead, SEEK_CUR) < 0) {
			errno = e;
			return 0;
		}
	}
	f->dir = 0;
	f->pos = f->len = 0;
	f->nback = 0;
	return r;
}

static int to_read(FILE *f)
{
	if (!(f->flags & FS_RD))
		return bad(f, EBADF);
	if (f->dir == 'w' && __ff_flush(f) < 0)
		return EOF;
	f->dir = 'r';
	return get_buf(f);
}

/* The buffer is empty: read more. 0, or EOF (eof or err set). */
static int refill(FILE *f)
{
	if (f == stdin)
		fflush(stdout);          /* a prompt shows before input is awaited */
	ssize_t r = __ff_read(f, f->buf, f->size);
	f->pos = 0;
	f->len = r > 0 ? (size_t)r : 0;
	if (r < 0)
		return bad(f, errno);
	if (r == 0) {
		f->eof = 1;
		return EOF;
	}
	return 0;
}

/* Bytes are waiting in the buffer, or it was refilled: 0; else EOF. The
   end-of-file indicator sticks (C11: fgetc reads nothing once it is set). */
static int ready(FILE *f)
{
	if (f->dir == 'r' && f->pos < f->len)
		return 0;
	if (f->eof)
		return EOF;
	if (to_read(f) < 0)
		return EOF;
	return refill(f);
}

static int getc_locked(FILE *f)
{
	if (f->nback)
		return f->back[--f->nback];
	if (ready(f) < 0)
		return EOF;
	return f->buf[f->pos++];
}

static int put(FILE *f, const char *s, size_t n)
{
	if (!(f->flags & FS_WR))
		return bad(f, EBADF);
	if (f->dir == 'r')
		__ff_flush(f);
	if (get_buf(f) < 0)
		return EOF;
	f->dir = 'w';
	if (n > f->size - f->len && __ff_flush(f) < 0)
		return EOF;
	f->dir = 'w';
	if (n >= f->size)                /* (always, unbuffered) */
		return write_all(f, s, n);
	memcpy(f->buf + f->len, s, n);
	f->len += n;
	return 0;
}

/* Line-buffered: what ends in the last newline goes out now, the rest
   waits. */
int __ff_write(FILE *f, const char *s, size_t n)
{
	const char *nl = f->bmode == _IOLBF ? memrchr(s, '\n', n) : 0;
	if (!nl)
		return put(f, s, n);
	size_t k = (size_t)(nl - s) + 1;
	if (put(f, s, k) < 0 || __ff_flush(f) < 0)
		return EOF;
	return k < n ? put(f, s + k, n - k) : 0;
}

int fgetc(FILE *f)
{
	flockfile(f);
	int c = getc_locked(f);
	funlockfile(f);
	return c;
}

int getc(FILE *f) { return fgetc(f); }
int getchar(void) { return fgetc(stdin); }

int ungetc(int c, FILE *f)
{
	if (c == EOF)
		return EOF;
	flockfile(f);
	int r = EOF;
	if (f->dir == 'r' || to_read(f) == 0) {
		if (f->nback < NBACK) {
			f->back[f->nback++] = (unsigned char)c;
			f->eof = 0;
			r = (unsigned char)c;
		}
	}
	funlockfile(f);
	return r;
}

/* A line (up to n-1 bytes and its '\n'), taken from the buffer with
   memchr rather than byte by byte. */
char *fgets(char *s, int n, FILE *f)
{
	if (n <= 0) {
		errno = EINVAL;
		return 0;
	}
	flockfile(f);
	size_t k = 0, max = (size_t)n - 1;
	int err = f->err;
	while (k < max) {
		if (f->nback) {
			s[k++] = (char)f->back[--f->nback];
			if (s[k - 1] == '\n')
				break;
			continue;
		}
		if (ready(f) < 0)
			break;
		size_t take = f->len - f->pos;
		if (take > max - k)
			take = max - k;
		unsigned char *at = f->buf + f->pos, *nl = memchr(at, '\n', take);
		if (nl)
			take = (size_t)(nl - at) + 1;
		memcpy(s + k, at, take);
		f->pos += take, k += take;
		if (nl)
			break;
	}
	int failed = f->err && !err;     /* a read error now: C says null */
	funlockfile(f);
	if ((!k && max) || failed)
		return 0;
	s[k] = 0;
	return s;
}

/* Copy out of the pushed-back bytes and the buffer; big remainders are
   read straight into p, past the buffer. */
size_t fread(void *p, size_t size, size_t n, FILE *f)
{
	if (!size || !n)
		return 0;
	if (n > (size_t)-1 / size) {
		errno = EOVERFLOW;
		return 0;
	}
	size_t want = size * n, got = 0;
	unsigned char *out = p;
	flockfile(f);
	while (got < want && f->nback)
		out[got++] = f->back[--f->nback];
	while (got < want) {
		if (f->dir == 'r' && f->pos < f->len) {
			size_t take = f->len - f->pos;
			if (take > want - got)
				take = want - got;
			memcpy(out + got, f->buf + f->pos, take);
			f->pos += take, got += take;
			continue;
		}
		if (f->eof || to_read(f) < 0)
			break;
		if (want - got < f->size) {
			if (refill(f) < 0)
				break;
			continue;
		}
		ssize_t r = __ff_read(f, out + got, want - got);
		if (r <= 0) {
			if (r < 0)
				bad(f, errno);
			else
				f->eof = 1;
			break;
		}
		got += (size_t)r;
	}
	funlockfile(f);
	return got / size;
}

ssize_t getdelim(char **line, size_t *cap, int delim, FILE *f)
{
	if (!line || !cap) {
		errno = EINVAL;
		return -1;
	}
	flockfile(f);
	size_t k = 0;
	int c = 0;
	while ((c = getc_locked(f)) != EOF) {
		if (k + 2 > *cap || !*line) {
			size_t nc = *cap < 64 ? 128 : *cap * 2;
			char *nl = realloc(*line, nc);
			if (!nl) {
				bad(f, ENOMEM);
				break;
			}
			*line = nl, *cap = nc;
		}
		(*line)[k++] = (char)c;
		if (c == delim)
			break;
	}
	if (k)
		(*line)[k] = 0;
	funlockfile(f);
	return k && (c != EOF || !f->err) ? (ssize_t)k : -1;
}

ssize_t getline(char **line, size_t *cap, FILE *f)
{
	return getdelim(line, cap, '\n', f);
}
