/* sh [-c STRING [NAME [ARG...]] | FILE [ARG...]]: runs STRING, the
   script FILE, or what stdin holds (read to its end first: not an
   interactive shell). Exit status: the last command's; 2 for a syntax
   error or a usage error; 127 when FILE cannot be read (as dash). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
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

/* All of fd's bytes to its end, NUL-ended (*n of them): the text of
   `sh FILE`, of stdin, of a script run in place, and $(...)'s output. */
char *read_all(int fd, size_t *n)
{
	size_t cap = 4096;
	char *s = xmalloc(cap);
	*n = 0;
	for (;;) {
		if (*n + 1 >= cap) {
			char *b = xmalloc(cap *= 2);
			memcpy(b, s, *n);
			free(s);
			s = b;
		}
		ssize_t r = read(fd, s + *n, cap - *n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		*n += (size_t)r;
	}
	s[*n] = 0;
	return s;
}

/* A script's text: a binary file is refused (126). */
static char *script(int fd)
{
	size_t n;
	char *s = read_all(fd, &n);
	if (memchr(s, 0, n)) {
		fprintf(stderr, "sh: cannot run a binary file\n");
		exit(126);
	}
	return s;
}

int main(int argc, char **argv)
{
	int i = take_options(argc, argv, 1);
	if (i < 0)
		return 2;
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	char *text;
	sh_pid = (int)getpid();
	char ppid[16];
	snprintf(ppid, sizeof ppid, "%d", (int)getppid());
	setenv("PPID", ppid, 1);
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
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "sh: cannot open %s: %s\n", argv[i], strerror(errno));
			return 127;
		}
		text = script(fd);
		close(fd);
		sh_argv = argv + i;
		sh_argc = argc - i;
	} else {
		text = script(0);
		sh_argv = argv;
		sh_argc = 1;
	}
	sh_exit(run_string(text));
	return 0;
}
