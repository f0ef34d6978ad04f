/* The failure path of assert() (see assert.h): the message goes to stderr,
   as the C standard says, after whatever stdout holds; then the program
   ends like abort() does, without running atexit functions. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

void __assert_fail(const char *expr, const char *file, int line)
{
	fflush(stdout);
	fprintf(stderr, "assertion failed: %s at %s:%d\n", expr, file, line);
	fflush(stdout);
	_Exit(ASSERT_STATUS);
}
