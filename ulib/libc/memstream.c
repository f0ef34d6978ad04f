/*
 * Streams on memory, as cookied streams (fcookie.c), with glibc's
 * behaviour:
 * fmemopen(buf, size, mode): the stream is buf's size bytes (buf null:
 * size bytes of its own, zeroed, freed at fclose). "r" and "r+" start
 * with all size bytes as the content; "w" and "w+" with none (buf[0]
 * becomes 0); "a" and "a+" with the bytes before the first 0 (or all),
 * and every write goes at the content's end. Reads stop at the content's
 * end; writes stop at size (a write past it is short: the stream's error
 * is set), and a write that makes the content longer stores a 0 after
 * it if there is room. SEEK_END
 * counts from the content's end; a seek outside [0, size] is EINVAL.
 * open_memstream(ptr, sizeloc): a write-only stream into a buffer that
 * grows; at each fflush and at fclose *ptr is the buffer (always 0
 * after the content) and *sizeloc the position; a seek past the end
 * and a write there fill the gap with zeros. The buffer is the caller's
 * to free after fclose.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

struct mem {
	char *buf;
	size_t size, pos, end;   /* capacity, position, content's end */
	int append, own;         /* fmemopen: "a" mode; buf malloc'd here */
	char **ptr;              /* open_memstream's: non-null */
	size_t *sizeloc;
};

static ssize_t mread(void *c, char *out, size_t n)
{
	struct mem *m = c;
	size_t k = m->pos < m->end ? m->end - m->pos : 0;
	if (k > n)
		k = n;
	memcpy(out, m->buf + m->pos, k);
	m->pos += k;
	return (ssize_t)k;
}

static ssize_t fwrite_mem(void *c, const char *in, size_t n)
{
	struct mem *m = c;
	size_t at = m->append ? m->end : m->pos;
	size_t k = at < m->size ? m->size - at : 0;
	if (k > n)
		k = n;
	if (!k && n) {
		errno = ENOSPC;
		return -1;
	}
	memcpy(m->buf + at, in, k);
	m->pos = at + k;
	if (m->pos > m->end) {           /* the content grew: a 0 after it, if it fits */
		m->end = m->pos;
		if (m->pos < m->size && in[k - 1])
			m->buf[m->pos] = 0;
	}
	return (ssize_t)k;
}

/* The new position of a seek from base's choice; EINVAL outside [0, max]. */
static int place(struct mem *m, off_t *off, int whence, size_t max)
{
	off_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (off_t)m->pos : (off_t)m->end;
	if ((whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) || base + *off < 0 ||
	    (size_t)(base + *off) > max) {
		errno = EINVAL;
		return -1;
	}
	m->pos = (size_t)(base + *off);
	*off = (off_t)m->pos;
	return 0;
}

static int fseek_mem(void *c, off_t *off, int whence)
{
	struct mem *m = c;
	return place(m, off, whence, m->size);
}

static int fclose_mem(void *c)
{
	struct mem *m = c;
	if (m->own)
		free(m->buf);
	free(m);
	return 0;
}

FILE *fmemopen(void *buf, size_t size, const char *mode)
{
	if (!size || !mode) {
		errno = EINVAL;
		return 0;
	}
	struct mem *m = calloc(1, sizeof *m);
	if (!m)
		return 0;
	m->buf = buf;
	if (!buf && !(m->buf = calloc(1, size))) {
		free(m);
		return 0;
	}
	m->own = !buf;
	m->size = size;
	if (mode[0] == 'r')
		m->end = size;
	else if (mode[0] == 'a')
		m->pos = m->end = strnlen(m->buf, size), m->append = 1;
	else if (mode[0] == 'w')
		m->buf[0] = 0;
	cookie_io_functions_t io = { mread, fwrite_mem, fseek_mem, fclose_mem };
	FILE *f = fopencookie(m, mode, io);
	if (!f)
		fclose_mem(m);
	return f;
}

/* *ptr and *sizeloc told the buffer and the position. */
static void tell(struct mem *m)
{
	*m->ptr = m->buf;
	*m->sizeloc = m->pos;
}

/* Room for n bytes at pos and the 0 after the content. */
static int grow(struct mem *m, size_t need)
{
	if (need < m->size)
		return 0;
	size_t nc = m->size * 2 > need ? m->size * 2 : need + 1;
	char *nb = realloc(m->buf, nc);
	if (!nb)
		return -1;
	memset(nb + m->size, 0, nc - m->size);
	m->buf = nb, m->size = nc;
	return 0;
}

static ssize_t swrite(void *c, const char *in, size_t n)
{
	struct mem *m = c;
	if (grow(m, m->pos + n) < 0)
		return -1;
	memcpy(m->buf + m->pos, in, n);
	m->pos += n;
	if (m->pos > m->end)
		m->end = m->pos;
	tell(m);
	return (ssize_t)n;
}

static int sseek(void *c, off_t *off, int whence)
{
	struct mem *m = c;
	if (place(m, off, whence, (size_t)-1 / 2) < 0)
		return -1;
	if (grow(m, m->pos) < 0)
		return -1;               /* (ENOMEM) */
	tell(m);
	return 0;
}

static int sclose(void *c)
{
	struct mem *m = c;
	tell(m);
	free(m);                         /* the buffer stays the caller's */
	return 0;
}

FILE *open_memstream(char **ptr, size_t *sizeloc)
{
	if (!ptr || !sizeloc) {
		errno = EINVAL;
		return 0;
	}
	struct mem *m = calloc(1, sizeof *m);
	if (!m || !(m->buf = calloc(1, m->size = 64))) {
		free(m);
		return 0;
	}
	m->ptr = ptr, m->sizeloc = sizeloc;
	tell(m);
	cookie_io_functions_t io = { 0, swrite, sseek, sclose };
	FILE *f = fopencookie(m, "w", io);
	if (!f) {
		free(m->buf);
		free(m);
	}
	return f;
}
