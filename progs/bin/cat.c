/* cat [FILE...]: the files (or stdin; "-" is stdin) to stdout, in
   order; a file that cannot be read is named on stderr, the rest still
   go, and the status is 1. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int copy(int fd, const char *name)
{
	static char buf[16384];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "cat: %s: %s\n", name, strerror(errno));
			return 1;
		}
		if (n == 0)
			return 0;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(1, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				fprintf(stderr, "cat: write error: %s\n", strerror(errno));
				return 1;
			}
			off += w;
		}
	}
}

int main(int argc, char **argv)
{
	int st = 0;
	if (argc < 2)
		return copy(0, "-");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-")) {
			st |= copy(0, "-");
			continue;
		}
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "cat: %s: %s\n", argv[i], strerror(errno));
			st = 1;
			continue;
		}
		st |= copy(fd, argv[i]);
		close(fd);
	}
	return st;
}
