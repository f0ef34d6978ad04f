/*
 * The self-tests' check counter (included by one program each: it
 * defines code). Define CHECK_NAME, the program's name, first. CHECK(e)
 * counts a check and, if e is false, prints "NAME: FAIL line L: e"; the
 * program reports `checks` and `failures` in its @result line.
 */
#ifndef PROGS_CHECK_H
#define PROGS_CHECK_H
#include <stdbool.h>
#include <stdio.h>

#ifndef CHECK_NAME
#error "define CHECK_NAME before including check.h"
#endif

static int checks, failures;

static void check(bool ok, const char *what, int line)
{
	checks++;
	if (!ok) {
		failures++;
		printf("%s: FAIL line %d: %s\n", CHECK_NAME, line, what);
	}
}
#define CHECK(e) check(!!(e), #e, __LINE__)

#endif
