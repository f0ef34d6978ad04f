/*
 * Start a thread at a SCHED_FIFO priority, set explicitly in its
 * attributes (not inherited from the creator), as the real-time tests do
 * (rtorder, rtthrot, portcompat's priority inversion).
 */
#ifndef PROGS_RTSTART_H
#define PROGS_RTSTART_H

#include <pthread.h>
#include <sched.h>

/* Create fn((void *)prio) as a SCHED_FIFO thread at priority prio into
   *t. Returns 0, or the first error of setting the priority or creating. */
static inline int rt_start(pthread_t *t, void *(*fn)(void *), int prio)
{
	pthread_attr_t a;
	struct sched_param p = { prio };
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	int e = pthread_attr_setschedparam(&a, &p);
	if (!e)
		e = pthread_create(t, &a, fn, (void *)(long)prio);
	pthread_attr_destroy(&a);
	return e;
}

#endif
