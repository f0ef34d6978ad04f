/*
 * How a program starts a thread package and creates its threads: the
 * part of a package that is not in the standard interface (<animart/thread.h>),
 * in one uniform shape so a test or benchmark can be written once and
 * run against every package (the conformance suite does exactly that).
 *
 * Every folder threadpkgs/NAME/ is a package: the build compiles it with
 * PKG_NAME ("NAME") and PKG_SELF (NAME_pkg), the symbol of its struct pkg,
 * and lists it in pkg_all[] (build/gen/pkgs.c). So adding the folder is
 * all it takes; pkg_find("NAME") finds it.
 */
#ifndef PKG_H
#define PKG_H

#include <animart/thread.h>

/* struct pkg's attrs: the thread_attr fields a package honors. */
#define PKG_ATTR_PRIO  1         /* thread_attr.prio orders its threads */
/* Its time slice: SCHED_OTHER's, and SCHED_RR's among a level (struct
   thread.rr), on a package with PKG_ATTR_PRIO (prio; sched_rr_get_interval) */
#define PKG_SLICE_NS   1000000
#define PKG_ATTR_STACK 2         /* thread_attr.stack_size sizes their stacks */

struct pkg {
	const char *name;
	/* Take over the calling program: run the package on `nvp` VPs (the
	   calling VP and nvp-1 more) and run main_fn(arg) as its first
	   thread. When main_fn returns, the program exits with its value.
	   Never returns. */
	__attribute__((noreturn)) void (*run)(int nvp, void *(*main_fn)(void *), void *arg);
	/* Create a runnable thread of this package running fn(arg), with
	   attributes `attr` (0: defaults); callable from any thread of any
	   package once run() has started (this package's or another's).
	   Returns 0 if out of memory. */
	struct thread *(*create)(void *(*fn)(void *), void *arg, const struct thread_attr *attr);
	/* Add `n` more VPs to a running package (0 if unsupported). */
	int (*add_vps)(int n);
	unsigned attrs;          /* PKG_ATTR_*: what it honors; the rest it ignores */
};

/* Packages that programs name directly (their folders exist). */
extern const struct pkg fifo_pkg;
extern const struct pkg naive_pkg;
extern const struct pkg kthread_pkg;

/* Every package of the build, 0-terminated (generated: build/gen/pkgs.c). */
extern const struct pkg *const pkg_all[];

/* The package called `name`, or 0. */
const struct pkg *pkg_find(const char *name);

/* A POSIX program's package, the one its pkg= word chose (ulib/pthread). */
extern const struct pkg *posix_pkg;

#endif
