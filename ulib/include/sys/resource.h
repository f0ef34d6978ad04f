/*
 * <sys/resource.h>: getrusage, with the context switches the thread
 * package counted (docs/posix.md): voluntary ones (a thread blocked, or
 * called sched_yield) and involuntary ones (taken off its VP: preempted,
 * warned, its time slice over; on kthread, the kernel's preemptions).
 */
#ifndef ULIB_SYS_RESOURCE_H
#define ULIB_SYS_RESOURCE_H

#include <bits/time.h>

#define RUSAGE_SELF    0
#define RUSAGE_THREAD  1

struct rusage {
	struct timeval ru_utime;     /* user time: the space's VPs' run time */
	struct timeval ru_stime;     /* system time: 0 (not counted apart) */
	long ru_maxrss, ru_ixrss, ru_idrss, ru_isrss;
	long ru_minflt, ru_majflt, ru_nswap, ru_inblock, ru_oublock;
	long ru_msgsnd, ru_msgrcv, ru_nsignals;
	long ru_nvcsw;               /* voluntary context switches */
	long ru_nivcsw;              /* involuntary context switches */
};

int getrusage(int who, struct rusage *usage);

#endif
