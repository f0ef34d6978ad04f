/* sleep SECONDS: waits that long (a decimal fraction allowed, as GNU's);
   a bad operand is status 1 with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <time.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: sleep SECONDS\n");
		return 1;
	}
	char *end;
	double s = strtod(argv[1], &end);
	if (end == argv[1] || *end || s < 0 || s > 1e9) {
		fprintf(stderr, "sleep: invalid time interval '%s'\n", argv[1]);
		return 1;
	}
	struct timespec t = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
	return 0;
}
