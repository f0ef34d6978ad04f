/* echo [-n] [-e|-E] [STRING...]: the words, a blank apart, and a newline
   (not with -n); -e reads the escapes \n \t \\ \c \0nnn ... as GNU's
   echo, the program Linux's /bin/echo is (the shell's builtin is dash's,
   which always reads them). */
#include <stdio.h>
#include <string.h>

/* s's escapes to stdout; 1 when \c ends the output. */
static int escapes(const char *s)
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
		const char *from = "abefnrtv\\", *to = "\a\b\033\f\n\r\t\v\\";
		const char *p = strchr(from, c);
		if (p)
			putchar(to[p - from]);
		else {
			putchar('\\');
			putchar(c);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int nl = 1, esc = 0, i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *o = argv[i] + 1;
		if (strspn(o, "neE") != strlen(o))
			break;                   /* not options: a word to print */
		for (; *o; o++)
			*o == 'n' ? (nl = 0) : *o == 'e' ? (esc = 1) : (esc = 0);
	}
	for (; i < argc; i++) {
		if (esc && escapes(argv[i]))
			return fflush(stdout) ? 1 : 0;
		if (!esc)
			fputs(argv[i], stdout);
		if (i + 1 < argc)
			putchar(' ');
	}
	if (nl)
		putchar('\n');
	return fflush(stdout) ? 1 : 0;
}
