/*
 * A deadlock's report, the same from det (det.c) and det=par (par.c):
 * every thread is blocked, so the program can never go on; the blocked
 * threads' ids go to the console, as a line for people and as
 * @result det.deadlock for the harness, and the program ends with
 * DET_DEADLOCK. Each package walks its own list of live threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include "deadlock.h"

static void say_line(struct uthread *t, int first)
{
	(void)first;
	printf(" %lu", (unsigned long)t->t.id);
}

static void say_json(struct uthread *t, int first)
{
	printf("%s%lu", first ? "" : ",", (unsigned long)t->t.id);
}

void det_deadlock(void (*each)(det_say say))
{
	printf("det: deadlock: every thread is blocked:");
	each(say_line);
	printf("\n@result {\"name\":\"det.deadlock\",\"blocked\":[");
	each(say_json);
	printf("]}\n");
	exit(DET_DEADLOCK);
}
