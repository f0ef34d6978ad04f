/*
 * ulib's own additions to the standard headers: kept out of <stdio.h> and
 * <stdlib.h> so those declare only standard names, and a program's own
 * globals of these names do not collide with ulib's (docs/libc.md).
 */
#ifndef ULIB_ULIB_H
#define ULIB_ULIB_H

#include <stddef.h>
#include <stdint.h>

#define STDOUT_LINE 2048        /* longest stdout line written in one piece */
#define EXIT_ABORT  134         /* abort(): as a shell reports SIGABRT */

/* Append n bytes to stdout (what printf does after formatting). */
void stdout_write(const char *s, size_t n);
/* Write a complete line (must end in '\n') with one sys_cputs, after
 * ending any pending partial line with a newline of its own. */
void stdout_line(const char *s, size_t n);

extern int prog_argc;           /* main's argc and argv, for any code */
extern char **prog_argv;

/* malloc's counters: how often the per-VP caches went to the central
 * lists (each a lock round trip for a batch of blocks). Exact: kept under
 * the locks. */
struct malloc_stats {
	uint64_t refills, drains;
};
extern struct malloc_stats malloc_counts;
extern int malloc_central_only;      /* nonzero: no caches (for comparisons) */
size_t malloc_usable_size(void *p);

/* The POSIX timers' counters (ulib/libc/timer.c), for tests that must
 * count events rather than compare processor time with wall time (a busy
 * host stretches both): the timer thread's looks at the table, and the
 * expiries whose signal was discarded (ignored, not blocked). */
struct timer_stats {
	uint64_t looks, discarded;
};
extern struct timer_stats timer_counts;

#endif
