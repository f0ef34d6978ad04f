/*
 * The parts of <stdio.h> about input and files. Anima has no file system
 * and the console has no input: stdin is always at end of file, opening
 * fails with ENOENT, and only the three standard streams exist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "file.h"

int fgetc(FILE *f)
{
	if (f != stdin) {          /* stdout, stderr: not open for reading */
		f->err = 1;
		errno = EBADF;
		return EOF;
	}
	f->eof = 1;
	return EOF;
}

int getc(FILE *f) { return fgetc(f); }
int getchar(void) { return fgetc(stdin); }

int ungetc(int c, FILE *f)
{
	(void)c, (void)f;
	return EOF;               /* nothing was read, so nothing can be pushed back */
}

char *fgets(char *s, int n, FILE *f)
{
	(void)s, (void)n;
	fgetc(f);
	return 0;
}

size_t fread(void *p, size_t size, size_t n, FILE *f)
{
	(void)p, (void)size, (void)n;
	fgetc(f);
	return 0;
}

ssize_t getdelim(char **line, size_t *cap, int delim, FILE *f)
{
	(void)delim;
	if (!line || !cap) {
		errno = EINVAL;
		return -1;
	}
	fgetc(f);
	return -1;
}

ssize_t getline(char **line, size_t *cap, FILE *f)
{
	return getdelim(line, cap, '\n', f);
}

int scanf(const char *fmt, ...)
{
	(void)fmt;
	return fgetc(stdin);      /* EOF: input failure before any conversion */
}

int fscanf(FILE *f, const char *fmt, ...)
{
	(void)fmt;
	return fgetc(f);
}

FILE *fopen(const char *path, const char *mode)
{
	(void)path, (void)mode;
	errno = ENOENT;
	return 0;
}

FILE *freopen(const char *path, const char *mode, FILE *f)
{
	(void)path, (void)mode, (void)f;
	errno = ENOENT;
	return 0;
}

FILE *fdopen(int fd, const char *mode)
{
	(void)mode;
	if (fd == 0)
		return stdin;
	if (fd == 1)
		return stdout;
	if (fd == 2)
		return stderr;
	errno = EBADF;
	return 0;
}

int fclose(FILE *f)
{
	return fflush(f);         /* the standard streams stay usable */
}

int fseek(FILE *f, long off, int whence)
{
	(void)f, (void)off, (void)whence;
	errno = ESPIPE;
	return -1;
}

long ftell(FILE *f)
{
	(void)f;
	errno = ESPIPE;
	return -1;
}

void rewind(FILE *f)
{
	clearerr(f);
}

int remove(const char *path)
{
	(void)path;
	errno = ENOENT;
	return -1;
}

FILE *tmpfile(void)
{
	errno = ENOSPC;
	return 0;
}

int vasprintf(char **out, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(0, 0, fmt, ap2);
	va_end(ap2);
	*out = n < 0 ? 0 : malloc((size_t)n + 1);
	if (!*out)
		return -1;
	return vsnprintf(*out, (size_t)n + 1, fmt, ap);
}

int asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(out, fmt, ap);
	va_end(ap);
	return r;
}
