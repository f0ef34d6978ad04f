/* GNU getopt_long (and getopt, from <unistd.h>). docs/libc.md. */
#ifndef ULIB_GETOPT_H
#define ULIB_GETOPT_H

#include <unistd.h>

struct option {
	const char *name;
	int has_arg;       /* no_argument, required_argument, optional_argument */
	int *flag;         /* non-NULL: store val here and return 0 */
	int val;
};
#define no_argument       0
#define required_argument 1
#define optional_argument 2

int getopt_long(int argc, char *const argv[], const char *opts,
		const struct option *longopts, int *index);
int getopt_long_only(int argc, char *const argv[], const char *opts,
		     const struct option *longopts, int *index);

#endif
