/*
 * assert(e): if e is false, print "assertion failed: e at FILE:LINE" and
 * exit with status ASSERT_STATUS (3; any non-zero status means failure to
 * the harness, and 3 tells an assertion apart from a plain exit 1).
 * Define NDEBUG to compile assertions out.
 */
#ifndef ULIB_ASSERT_H
#define ULIB_ASSERT_H

#define ASSERT_STATUS 3

__attribute__((noreturn)) void __assert_fail(const char *expr, const char *file, int line);

#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__))
#endif

#endif
