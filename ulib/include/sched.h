/*
 * <sched.h>: scheduling policies and priorities for POSIX threads
 * (docs/posix.md). Priorities are the thread interface's (<thread.h>,
 * THREAD_PRIO_MIN..MAX): honored by packages with priorities (prio),
 * kept by the others (where mutex ceilings read them).
 */
#ifndef ULIB_SCHED_H
#define ULIB_SCHED_H

#include <bits/time.h>

#define SCHED_OTHER 0
#define SCHED_FIFO  1
#define SCHED_RR    2

struct sched_param {
	int sched_priority;
};

int sched_yield(void);
int sched_get_priority_min(int policy);
int sched_get_priority_max(int policy);

#endif
