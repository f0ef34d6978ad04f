/*
 * Watching a CPU-time clock from another thread, for the timers that
 * count one down (timer.c's on CLOCK_PROCESS_CPUTIME_ID or a thread's
 * clock, itimer.c's ITIMER_VIRTUAL and ITIMER_PROF). Nothing tells a
 * thread when a CPU clock reaches a value; the watcher sleeps on the
 * wall clock until the earliest moment it could (cpu_nap), reads the
 * clock again, and fires or sleeps again. So an expiry is never early,
 * and late by at most the last nap's rounding (MIN_NAP) and the
 * watcher's wait for a VP.
 *
 * The process clock runs at most as many times faster than the wall
 * clock as there are CPUs: the nap is the time left divided by them. A
 * thread runs on one CPU at a time, so its clock runs no faster than the
 * wall clock: the nap is the whole time left (and a blocked thread's
 * clock, which stands still, costs one look per time left).
 */
#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <animart/thread.h>
#include "svc.h"

#define NS 1000000000ULL
#define MIN_NAP 1000000ULL       /* 1 ms: the least the watcher sleeps */

int __thread_cpuclock(clockid_t clock);                          /* ulib/rt/cpuclock.c */
int __thread_getcpuclockid(struct thread *t, clockid_t *clock);

/* The clock a timer on `clock` watches: the process's, or a thread's by
   its own id (CLOCK_THREAD_CPUTIME_ID names the caller, which the
   watcher is not). 0, or EINVAL: not a CPU clock, or a stale one. */
int __cpu_clock_resolve(clockid_t clock, clockid_t *out);
int __cpu_clock_resolve(clockid_t clock, clockid_t *out)
{
	if (clock == CLOCK_THREAD_CPUTIME_ID) {
		struct thread *self = thread_self();
		if (!self || __thread_getcpuclockid(self, &clock))
			return EINVAL;
	} else if (clock != CLOCK_PROCESS_CPUTIME_ID && !__thread_cpuclock(clock))
		return EINVAL;
	if (__cpu_clock_ns(clock) < 0)
		return EINVAL;
	*out = clock;
	return 0;
}

/* The clock's time in ns; -1 once its thread has exited. */
int64_t __cpu_clock_ns(clockid_t clock)
{
	struct timespec ts;
	if (clock_gettime(clock, &ts))
		return -1;
	return (int64_t)((uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec);
}

/* The wall time before `clock` could have run `left` ns more. */
uint64_t __cpu_nap(clockid_t clock, uint64_t left)
{
	static long ncpu;
	if (!ncpu) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		ncpu = n > 0 ? n : 1;
	}
	uint64_t d = clock == CLOCK_PROCESS_CPUTIME_ID ? left / (uint64_t)ncpu : left;
	return d < MIN_NAP ? MIN_NAP : d;
}
