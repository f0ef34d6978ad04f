/*
 * The backslash escapes of echo and printf (progs/bin/echo.c, the
 * shell's builtins): \a \b \f \n \r \t \v \\, \0nnn (octal, up to three
 * digits) and \c (ends all output); with `esc`, \e too (GNU echo's).
 * Any other backslash is itself. s to stdout: 1 when \c ended it.
 */
#ifndef PROGS_ESCAPES_H
#define PROGS_ESCAPES_H
#include <stdio.h>
#include <string.h>

static int put_escapes(const char *s, int esc)
{
	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			putchar(*s);
			continue;
		}
		char c = *++s;
		if (c == 'c')
			return 1;
		if (c == '0') {
			int v = 0;
			for (int k = 0; k < 3 && s[1] >= '0' && s[1] <= '7'; k++)
				v = v * 8 + (*++s - '0');
			putchar(v);
			continue;
		}
		const char *from = "abfnrtv\\e", *to = "\a\b\f\n\r\t\v\\\033";
		const char *p = strchr(from, c);
		if (p && (c != 'e' || esc))
			putchar(to[p - from]);
		else {
			putchar('\\');
			putchar(c);
		}
	}
	return 0;
}
#endif
