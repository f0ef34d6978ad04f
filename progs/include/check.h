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
#include <animart/fence.h>

#ifndef CHECK_NAME
#error "define CHECK_NAME before including check.h"
#endif

static int checks, failures;

/* Atomic: threads check too (a plain ++ from 4 threads lost a count).
   And fenced: under det=par (<animart/fence.h>) atomics between
   synchronizations stay in each thread's view, and the commits kept one
   thread's count (uctx's four generator threads: 31 checks of 34). */
static void check(bool ok, const char *what, int line)
{
	FENCED_VOID(check(ok, what, line));
	__atomic_fetch_add(&checks, 1, __ATOMIC_RELAXED);
	if (!ok) {
		__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
		printf("%s: FAIL line %d: %s\n", CHECK_NAME, line, what);
	}
}
#define CHECK(e) check(!!(e), #e, __LINE__)

#endif
