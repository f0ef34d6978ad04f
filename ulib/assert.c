/* The failure path of assert() (see assert.h). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

void __assert_fail(const char *expr, const char *file, int line)
{
	printf("assertion failed: %s at %s:%d\n", expr, file, line);
	exit(ASSERT_STATUS);
}
