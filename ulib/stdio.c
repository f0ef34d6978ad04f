/*
 * printf and friends over a line-buffered stdout (see stdio.h).
 *
 * printf formats into a buffer on its own stack first, with no lock held,
 * and hands the text to stdout_write in pieces of up to PIECE bytes; only
 * the append to the shared line buffer (and the sys_cputs of each
 * completed line) happens under the stdout lock.
 */
#include <stdio.h>
#include <string.h>
#include <fmt.h>
#include <sys.h>
#include <spin.h>

#define PIECE 512

static struct spin outlock;
static char line[STDOUT_LINE];
static size_t linelen;

/* Write out the buffered bytes. Caller holds outlock. */
static void drain(void)
{
	if (linelen)
		sys_cputs(line, linelen);
	linelen = 0;
}

void stdout_write(const char *s, size_t n)
{
	spin_lock_by(&outlock, 0);
	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t take = nl ? (size_t)(nl - s) + 1 : n;
		if (take > sizeof line - linelen)
			take = sizeof line - linelen;
		memcpy(line + linelen, s, take);
		linelen += take;
		s += take;
		n -= take;
		if (line[linelen - 1] == '\n' || linelen == sizeof line)
			drain();
	}
	spin_unlock_by(&outlock, 0);
}

void stdout_line(const char *s, size_t n)
{
	spin_lock_by(&outlock, 0);
	if (linelen) {
		/* Never glue a machine-readable line onto a partial one. */
		if (linelen == sizeof line)
			drain();
		line[linelen++] = '\n';
		drain();
	}
	sys_cputs(s, n);
	spin_unlock_by(&outlock, 0);
}

void flush(void)
{
	spin_lock_by(&outlock, 0);
	drain();
	spin_unlock_by(&outlock, 0);
}

/* --- printf: format into a private piece buffer --- */

struct piece {
	char buf[PIECE];
	size_t n;
};

static void piece_put(char c, void *arg)
{
	struct piece *p = arg;
	if (p->n == sizeof p->buf) {
		stdout_write(p->buf, p->n);
		p->n = 0;
	}
	p->buf[p->n++] = c;
}

int vprintf(const char *f, va_list ap)
{
	struct piece p;
	p.n = 0;
	int r = fmt(piece_put, &p, f, ap);
	if (p.n)
		stdout_write(p.buf, p.n);
	return r;
}

int printf(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int r = vprintf(f, ap);
	va_end(ap);
	return r;
}

int puts(const char *s)
{
	return printf("%s\n", s) < 0 ? -1 : 0;
}

int putchar(int c)
{
	char ch = (char)c;
	stdout_write(&ch, 1);
	return (unsigned char)c;
}

/* --- into memory --- */

struct sbuf {
	char *buf;
	size_t cap, n;   /* n counts everything, even what did not fit */
};

static void sbuf_put(char c, void *arg)
{
	struct sbuf *s = arg;
	if (s->n + 1 < s->cap)
		s->buf[s->n] = c;
	s->n++;
}

int vsnprintf(char *buf, size_t n, const char *f, va_list ap)
{
	struct sbuf s = { buf, n, 0 };
	int r = fmt(sbuf_put, &s, f, ap);
	if (n)
		buf[s.n < n ? s.n : n - 1] = 0;
	return r;
}

int snprintf(char *buf, size_t n, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int r = vsnprintf(buf, n, f, ap);
	va_end(ap);
	return r;
}

int sprintf(char *buf, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int r = vsnprintf(buf, (size_t)1 << 30, f, ap);
	va_end(ap);
	return r;
}
