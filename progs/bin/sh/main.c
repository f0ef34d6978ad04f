/* sh [-c STRING [NAME [ARG...]] | FILE [ARG...]]: runs STRING, the
   script FILE, or what stdin holds (read to its end first: not an
   interactive shell). Exit status: the last command's; 2 for a syntax
   error or a usage error; 127 when FILE cannot be read (as dash). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "sh.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "sh: out of memory\n");
		exit(2);
	}
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

static char *slurp(FILE *f)
{
	size_t n = 0, cap = 4096;
	char *s = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			char *b = xmalloc(cap *= 2);
			memcpy(b, s, n);
			free(s);
			s = b;
		}
		size_t r = fread(s + n, 1, cap - n - 1, f);
		if (!r)
			break;
		n += r;
	}
	s[n] = 0;
	if (memchr(s, 0, n)) {
		fprintf(stderr, "sh: cannot run a binary file\n");
		exit(126);
	}
	return s;
}

int main(int argc, char **argv)
{
	int i = 1;
	while (i < argc && argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "-c") && strcmp(argv[i], "--"))
		i++;                     /* options (-e, -x, ...) are taken, not followed */
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	char *text;
	if (i < argc && !strcmp(argv[i], "-c")) {
		if (i + 1 >= argc) {
			fprintf(stderr, "sh: -c requires an argument\n");
			return 2;
		}
		text = argv[i + 1];
		sh_argv = argv + i + 2;
		sh_argc = argc - i - 2;
		if (!sh_argc) {
			sh_argv = argv;          /* $0 is the shell's own name */
			sh_argc = 1;
		}
	} else if (i < argc) {
		FILE *f = fopen(argv[i], "r");
		if (!f) {
			fprintf(stderr, "sh: cannot open %s: %s\n", argv[i], strerror(errno));
			return 127;
		}
		text = slurp(f);
		fclose(f);
		sh_argv = argv + i;
		sh_argc = argc - i;
	} else {
		text = slurp(stdin);
		sh_argv = argv;
		sh_argc = 1;
	}
	int st = run_string(text);
	fflush(0);
	return st;
}
