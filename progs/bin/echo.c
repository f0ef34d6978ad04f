/* echo [-n] [-e|-E] [STRING...]: the words, a blank apart, and a newline
   (not with -n); -e reads the escapes \n \t \\ \c \0nnn ... as GNU's
   echo, the program Linux's /bin/echo is (the shell's builtin is dash's,
   which always reads them). */
#include <stdio.h>
#include <string.h>
#include "escapes.h"

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
		if (esc && put_escapes(argv[i], 1))
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
