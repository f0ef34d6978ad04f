/* <err.h> and <libgen.h>: messages and path names for ported BSD-style code. */
#include <err.h>
#include <libgen.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animalib/ulib.h>

static void msg(int with_errno, const char *fmt, va_list ap)
{
	int e = errno;
	char line[512];
	int n = snprintf(line, sizeof line, "%s: ",
			 prog_argc > 0 && prog_argv[0] ? prog_argv[0] : "?");
	if (fmt && n < (int)sizeof line)
		n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	if (with_errno && n < (int)sizeof line)
		n += snprintf(line + n, sizeof line - (size_t)n, "%s%s", fmt ? ": " : "", strerror(e));
	fflush(stdout);
	fprintf(stderr, "%s\n", line);
}

void vwarn(const char *fmt, va_list ap) { msg(1, fmt, ap); }
void vwarnx(const char *fmt, va_list ap) { msg(0, fmt, ap); }
void verr(int status, const char *fmt, va_list ap) { msg(1, fmt, ap); exit(status); }
void verrx(int status, const char *fmt, va_list ap) { msg(0, fmt, ap); exit(status); }

void warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void warnx(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
}

void err(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr(status, fmt, ap);
}

void errx(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verrx(status, fmt, ap);
}

/* POSIX's: they may modify path; "" and NULL give ".". */
char *basename(char *p)
{
	if (!p || !*p)
		return ".";
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		p[--n] = 0;
	char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

char *dirname(char *p)
{
	if (!p || !*p)
		return ".";
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		n--;
	while (n > 0 && p[n - 1] != '/')
		n--;
	if (n == 0)
		return ".";
	while (n > 1 && p[n - 1] == '/')
		n--;
	p[n] = 0;
	return p;
}
