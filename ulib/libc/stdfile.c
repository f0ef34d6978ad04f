/*
 * The rest of <stdio.h> about files: removing (temporary files:
 * tmpfile.c), and asprintf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

/* Reading, opening and seeking: fio.c and ffile.c. */

int remove(const char *path)
{
	return unlink(path);     /* (no rmdir yet) */
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
