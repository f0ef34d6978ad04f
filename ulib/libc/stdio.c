/*
 * printf and friends over the console (see stdio.h): stdout line-buffered,
 * stderr unbuffered, stdin always at end of file.
 *
 * printf formats into a buffer on its own stack first, with no lock held,
 * and hands the text to stdout_write in pieces of up to PIECE bytes; only
 * the append to the shared line buffer (and the sys_cputs of each
 * completed line) happens under the stdout lock. stderr's text goes out
 * piece by piece, under the same lock so it never lands inside a line
 * that is being written out.
 *
 * flockfile gives a stream a recursive owner: a thread's several prints
 * between flockfile and funlockfile come out together. A print checks the
 * owner under the stdout lock (one load: no owner, it goes on as before)
 * and, if another thread holds the stream, takes the stream itself
 * (waiting on its mutex) for the one call. So a holder may block or sleep
 * between its prints: it holds only the mutex, never the spin lock.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>
#include <animacom/fmt.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <animalib/ulib.h>
#include "file.h"
#include <animart/fence.h>
#include "nocancel.h"

/* printf's %m (glibc's): the message for errno as it is at the call.
   fmt.c, shared with the kernel, asks through this weak hook. */
const char *fmt_errno_message(void)
{
	return strerror(errno);
}

#define PIECE 512

static struct __file files[3] = { { .fd = 0, .flags = FS_RD }, { .fd = 1 }, { .fd = 2 } };
FILE *stdin = &files[0], *stdout = &files[1], *stderr = &files[2];

static struct spin outlock;

/* A fork's child (ulib/pthread/pfork.c), where only the forking thread
   lives: f's flockfile lock as glibc's child has its stream locks,
   free, unless that thread itself holds it (then it keeps it, and no
   waiter: the waiters are the parent's). Another thread's hold, or its
   lock or unlock half done, would leave the child waiting for good. */
static struct thread *caller(void);

void __file_forked(FILE *f)
{
	struct thread *me = caller();
	if (!me)
		return;                  /* (one flow of control: nothing to free) */
	if (f->owner == me) {
		f->lock.state = 1;           /* (a stream's mutex has no ceiling) */
		f->lock.lock = (struct spin)SPIN_INIT;
		f->lock.q = (struct waitq){ 0 };
		return;
	}
	f->owner = 0;
	f->depth = 0;
	memset(&f->lock, 0, sizeof f->lock);
}

/* The child's standard streams: the output lock free (not held across
   the copy: a thread blocked writing to a full pipe holds it, and fork
   would wait for the reader; the child keeps the line as the copy found
   it, at worst a part of another thread's print) and each stream's
   flockfile lock (before, the child's next print, or its exit's flush,
   spun for good: forklock). */
void __stdio_forked(void);
void __stdio_forked(void)
{
	outlock.locked = 0;
	for (int i = 0; i < 3; i++)
		__file_forked(&files[i]);
}

static char line[STDOUT_LINE];
static size_t linelen;
static int unbuffered;            /* setvbuf(stdout, _IONBF) */

int __fd_out(int fd);   /* fd.c: fd is the console's output (else: write(fd),
			  to a pipe or a file; /dev/null or closed: dropped) */

/* Write out the buffered bytes. Caller holds outlock (so a write to a
   full pipe waits with it held: the program's other prints wait too). */
static void drain(void)
{
	if (linelen && __fd_out(1))
		sys_cputs(line, linelen);
	else if (linelen)
		__write_nocancel(1, line, linelen);
	linelen = 0;
}

/* flockfile's caller: its thread once a package runs the program's
   threads, else 0 (one flow of control: the lock only counts). */
static struct thread *caller(void)
{
	return thread_pkgs_on ? thread_self() : 0;
}

void flockfile(FILE *f)
{
	struct thread *me = caller();
	if (me && f->owner != me) {
		umutex_lock(&f->lock);
		f->owner = me;
	}
	f->depth++;
}

int ftrylockfile(FILE *f)
{
	struct thread *me = caller();
	if (me && f->owner != me) {
		if (!umutex_trylock(&f->lock))
			return -1;
		f->owner = me;
	}
	f->depth++;
	return 0;
}

void funlockfile(FILE *f)
{
	if (--f->depth == 0 && f->owner) {
		f->owner = 0;
		umutex_unlock(&f->lock);
	}
}

/* Under outlock: f is flockfile'd by a thread other than t. Code that
   runs with software interrupts off (t 0: a scheduler's message) never
   waits for it. */
static inline int locked_by_other(FILE *f, struct thread *t)
{
	struct thread *o = f->owner;
	return __builtin_expect(o != 0, 0) && t && o != t;
}

/* A writer's start: take outlock for t's write of s to f and return 1.
   If another thread holds f (flockfile), drop the lock instead, take the
   stream for this one call (waiting on its mutex) and make it again
   through `write`, which then finds f its own, and return 0: the writer
   returns at once. */
static inline __attribute__((always_inline)) int out_lock(FILE *f, struct thread *t,
							  void (*write)(const char *, size_t),
							  const char *s, size_t n)
{
	spin_lock_by(&outlock, t);
	if (!locked_by_other(f, t))
		return 1;
	spin_unlock_by(&outlock, t);
	flockfile(f);
	write(s, n);
	funlockfile(f);
	return 0;
}

void stdout_write(const char *s, size_t n)
{
	FENCED_VOID(stdout_write(s, n));
	/* Not switched out holding it: the other threads' prints would spin
	   on it for ever on an upcall VP (tutor, at a warning: glibc's
	   tst-rwlock9 hung 1 boot in 20 at -smp 2). */
	struct thread *t = spin_owner();
	if (!out_lock(stdout, t, stdout_write, s, n))
		return;
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
	if (unbuffered)
		drain();
	spin_unlock_by(&outlock, t);
}

void stdout_line(const char *s, size_t n)
{
	FENCED_VOID(stdout_line(s, n));
	struct thread *t = spin_owner();
	if (!out_lock(stdout, t, stdout_line, s, n))
		return;
	if (linelen) {
		/* Never glue a machine-readable line onto a partial one. */
		if (linelen == sizeof line)
			drain();
		line[linelen++] = '\n';
		drain();
	}
	sys_cputs(s, n);
	spin_unlock_by(&outlock, t);
}

static void stderr_write(const char *s, size_t n)
{
	FENCED_VOID(stderr_write(s, n));
	struct thread *t = spin_owner();
	if (!out_lock(stderr, t, stderr_write, s, n))
		return;
	if (!__fd_out(2)) {
		__write_nocancel(2, s, n);          /* a pipe, a file, /dev/null */
		n = 0;
	}
	for (size_t k; n; s += k, n -= k) {
		k = n < 4096 ? n : 4096;   /* the kernel takes at most 64 KiB a call */
		sys_cputs(s, k);
	}
	spin_unlock_by(&outlock, t);
}

/* Streams on descriptors (fio.c, ffile.c): weak, so a program that
   opens none links none of it. */
__attribute__((weak)) int __ff_write(FILE *f, const char *s, size_t n);
__attribute__((weak)) int __ff_flush(FILE *f);
__attribute__((weak)) void __ff_flushall(void);
__attribute__((weak)) int __ff_setvbuf(FILE *f, char *buf, int mode, size_t size);

static inline int is_console(FILE *f)
{
	return f == stdout || f == stderr;
}

/* put's for a stream on a descriptor: out of line, so the console's
   path stays as short as it was. */
static __attribute__((noinline)) int put_file(FILE *f, const char *s, size_t n)
{
	flockfile(f);
	int r = __ff_write(f, s, n);
	funlockfile(f);
	return r;
}

/* Write to a stream; 0 or EOF (EBADF for stdin or an unknown stream). */
static int put(FILE *f, const char *s, size_t n)
{
	if (f == stdout)
		stdout_write(s, n);
	else if (f == stderr)
		stderr_write(s, n);
	else if (f && __ff_write)
		return put_file(f, s, n);
	else {
		if (f)
			f->err = 1;
		errno = EBADF;
		return EOF;
	}
	return 0;
}

/* It takes no stream lock (glibc's exit does not either): it only pushes
   out a partial line, and a holder's text stays together all the same,
   since other threads' prints wait for the holder. */
int fflush(FILE *f)
{
	if (f && !is_console(f)) {
		if (!__ff_flush)
			return 0;        /* stdin, nothing read yet */
		flockfile(f);
		int r = __ff_flush(f);
		funlockfile(f);
		return r;
	}
	if (!f && __ff_flushall)
		__ff_flushall();
	struct thread *t = spin_owner();
	spin_lock_by(&outlock, t);
	drain();
	spin_unlock_by(&outlock, t);
	return 0;
}

int setvbuf(FILE *f, char *buf, int mode, size_t size)
{
	(void)buf, (void)size;
	if (mode != _IONBF && mode != _IOLBF && mode != _IOFBF)
		return -1;
	if (!is_console(f))
		return __ff_setvbuf ? __ff_setvbuf(f, buf, mode, size) : 0;
	if (f == stdout) {   /* _IOFBF stays line-buffered: lines must reach the console whole */
		fflush(stdout);
		unbuffered = mode == _IONBF;
	}
	return 0;
}

void setbuf(FILE *f, char *buf)
{
	setvbuf(f, buf, buf ? _IOFBF : _IONBF, BUFSIZ);
}

void setlinebuf(FILE *f)
{
	setvbuf(f, 0, _IOLBF, 0);
}

/* --- printf: format into a private piece buffer --- */

struct piece {
	FILE *f;
	char buf[PIECE];
	size_t n;
	int bad;
};

static void piece_put(char c, void *arg)
{
	struct piece *p = arg;
	if (p->n == sizeof p->buf) {
		p->bad |= put(p->f, p->buf, p->n);
		p->n = 0;
	}
	p->buf[p->n++] = c;
}

static inline __attribute__((always_inline)) int format(FILE *f, const char *fm, va_list ap)
{
	struct piece p;
	p.f = f;
	p.n = 0;
	p.bad = 0;
	int r = fmt_format(piece_put, &p, fm, ap);
	if (p.n)
		p.bad |= put(f, p.buf, p.n);
	return p.bad ? -1 : r;
}

/* A stream on a descriptor: one call's text together (out of line, as
   put_file). */
static __attribute__((noinline)) int format_file(FILE *f, const char *fm, va_list ap)
{
	flockfile(f);
	int r = format(f, fm, ap);
	funlockfile(f);
	return r;
}

int vfprintf(FILE *f, const char *fm, va_list ap)
{
	if (f && !is_console(f))
		return format_file(f, fm, ap);
	return format(f, fm, ap);
}

int vprintf(const char *fm, va_list ap)
{
	return vfprintf(stdout, fm, ap);
}

int printf(const char *fm, ...)
{
	va_list ap;
	va_start(ap, fm);
	int r = vfprintf(stdout, fm, ap);
	va_end(ap);
	return r;
}

int fprintf(FILE *f, const char *fm, ...)
{
	va_list ap;
	va_start(ap, fm);
	int r = vfprintf(f, fm, ap);
	va_end(ap);
	return r;
}

int vdprintf(int fd, const char *fm, va_list ap)
{
	if (fd != 1 && fd != 2) {       /* another descriptor: formatted, then one write */
		char *s;
		int n = vasprintf(&s, fm, ap);
		if (n < 0)
			return -1;
		ssize_t w = __write_nocancel(fd, s, (size_t)n);
		free(s);
		return w < 0 ? -1 : n;
	}
	return vfprintf(fd == 1 ? stdout : stderr, fm, ap);
}

int dprintf(int fd, const char *fm, ...)
{
	va_list ap;
	va_start(ap, fm);
	int r = vdprintf(fd, fm, ap);
	va_end(ap);
	return r;
}

int fputs(const char *s, FILE *f)
{
	return put(f, s, strlen(s));
}

int puts(const char *s)
{
	return printf("%s\n", s) < 0 ? EOF : 0;
}

int fputc(int c, FILE *f)
{
	char ch = (char)c;
	return put(f, &ch, 1) ? EOF : (unsigned char)c;
}

int putc(int c, FILE *f)
{
	return fputc(c, f);
}

int putchar(int c)
{
	return fputc(c, stdout);
}

size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	if (!size || !n)
		return 0;
	return put(f, p, size * n) ? 0 : n;
}

void perror(const char *s)
{
	if (s && *s)
		fprintf(stderr, "%s: %s\n", s, strerror(errno));
	else
		fprintf(stderr, "%s\n", strerror(errno));
}

/* The _unlocked forms (POSIX, and glibc's): the same calls. Each one's
   bytes go out under the stdout lock anyway, and skipping the check of
   flockfile's owner would save one load. */
int getc_unlocked(FILE *f) { return fgetc(f); }
int getchar_unlocked(void) { return fgetc(stdin); }
int fgetc_unlocked(FILE *f) { return fgetc(f); }
int putc_unlocked(int c, FILE *f) { return fputc(c, f); }
int putchar_unlocked(int c) { return fputc(c, stdout); }
int fputc_unlocked(int c, FILE *f) { return fputc(c, f); }
int fputs_unlocked(const char *s, FILE *f) { return fputs(s, f); }
size_t fwrite_unlocked(const void *p, size_t size, size_t n, FILE *f) { return fwrite(p, size, n, f); }
size_t fread_unlocked(void *p, size_t size, size_t n, FILE *f) { return fread(p, size, n, f); }
char *fgets_unlocked(char *s, int n, FILE *f) { return fgets(s, n, f); }
int fflush_unlocked(FILE *f) { return fflush(f); }
int feof_unlocked(FILE *f) { return f->eof; }
int ferror_unlocked(FILE *f) { return f->err; }
void clearerr_unlocked(FILE *f) { f->eof = f->err = 0; }
int fileno_unlocked(FILE *f) { return f->fd; }

int feof(FILE *f) { return f->eof; }
int ferror(FILE *f) { return f->err; }
void clearerr(FILE *f) { f->eof = f->err = 0; }
int fileno(FILE *f) { return f->fd; }

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

int vsnprintf(char *buf, size_t n, const char *fm, va_list ap)
{
	struct sbuf s = { buf, n, 0 };
	int r = fmt_format(sbuf_put, &s, fm, ap);
	if (n)
		buf[s.n < n ? s.n : n - 1] = 0;
	return r;
}

int snprintf(char *buf, size_t n, const char *fm, ...)
{
	va_list ap;
	va_start(ap, fm);
	int r = vsnprintf(buf, n, fm, ap);
	va_end(ap);
	return r;
}

int vsprintf(char *buf, const char *fm, va_list ap)
{
	return vsnprintf(buf, (size_t)1 << 30, fm, ap);
}

int sprintf(char *buf, const char *fm, ...)
{
	va_list ap;
	va_start(ap, fm);
	int r = vsprintf(buf, fm, ap);
	va_end(ap);
	return r;
}
