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
#define RUSAGE_CHILDREN (-1)    /* no child processes here: all zero */

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

/* The nice value, recorded (ulib/nice.c): it changes no scheduling. */
#include <sys/types.h>
#define PRIO_PROCESS 0
#define PRIO_PGRP    1
#define PRIO_USER    2
int getpriority(int which, id_t who);
int setpriority(int which, id_t who, int prio);

/* Limits (ulib/rlimit.c): what there is to say about them here. */
typedef unsigned long rlim_t;
#define RLIM_INFINITY   (~0UL)
#define RLIM_SAVED_MAX  RLIM_INFINITY
#define RLIM_SAVED_CUR  RLIM_INFINITY
struct rlimit {
	rlim_t rlim_cur, rlim_max;
};
#define RLIMIT_CPU     0
#define RLIMIT_FSIZE   1
#define RLIMIT_DATA    2
#define RLIMIT_STACK   3
#define RLIMIT_CORE    4
#define RLIMIT_RSS     5
#define RLIMIT_NPROC   6
#define RLIMIT_NOFILE  7
#define RLIMIT_MEMLOCK 8
#define RLIMIT_AS      9
#define RLIMIT_NLIMITS 16
/* getrlimit: RLIMIT_NOFILE 1024 (the descriptor table), RLIMIT_STACK the
   default thread stack (soft; no hard limit), RLIMIT_CORE 0 (no core
   dumps), the others RLIM_INFINITY (bounded by memory only); a resource
   above 15 EINVAL. setrlimit records a lowered limit (or a soft one
   raised up to the hard one) and getrlimit gives it back; only
   RLIMIT_NOFILE is enforced (no new descriptor at or above it); raising
   a hard limit is EPERM. */
int getrlimit(int resource, struct rlimit *rl);
int setrlimit(int resource, const struct rlimit *rl);

#endif
