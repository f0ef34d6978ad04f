/*
 * Spawning a child space and collecting its exit status, for the tests
 * that run copies of themselves as children (segexhaust, fsgsattack,
 * secev). A test reports a child's status as a figure, so a child that
 * never was (a failed spawn) or could not be waited for reports
 * CHILD_LOST, a status none of these children exits with.
 */
#ifndef PROGS_CHILD_H
#define PROGS_CHILD_H

#include <animart/sys.h>

#define CHILD_LOST (-200)

/* The exit status of child `id` (sys_spawn's answer: negative if the
   spawn failed), once it has ended. */
static inline int child_status(long id)
{
	int st = CHILD_LOST;
	return id > 0 && sys_wait((int)id, &st) == id ? st : CHILD_LOST;
}

/* Run program argv[0] as a child with argv; its exit status. */
static inline int child_run(int argc, const char **argv)
{
	return child_status(sys_spawn(argv[0], argc, argv));
}

#endif
