/*
 * How a program starts a thread package and creates its threads: the
 * part of a package that is not in the standard interface (<thread.h>),
 * in one uniform shape so a test or benchmark can be written once and
 * run against every package (the conformance suite does exactly that).
 */
#ifndef PKG_H
#define PKG_H

#include <thread.h>

struct pkg {
	const char *name;
	/* Take over the calling program: run the package on `nvp` VPs (the
	   calling VP and nvp-1 more) and run main_fn(arg) as its first
	   thread. When main_fn returns, the program exits with its value.
	   Never returns. */
	__attribute__((noreturn)) void (*run)(int nvp, void *(*main_fn)(void *), void *arg);
	/* Create a runnable thread of this package running fn(arg); callable
	   from any thread of any package once run() has started (this package's
	   or another's). Returns 0 if out of memory. */
	struct thread *(*create)(void *(*fn)(void *), void *arg);
	/* Add `n` more VPs to a running package (0 if unsupported). */
	int (*add_vps)(int n);
};

extern const struct pkg fifo_pkg;
extern const struct pkg naive_pkg;
extern const struct pkg kthread_pkg;
extern const struct pkg tutor_pkg;       /* the tutorial's (docs/writing-a-thread-package.md) */

#endif
