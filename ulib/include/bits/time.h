/*
 * Time types shared by <time.h>, <sys/time.h>, <pthread.h> and
 * <semaphore.h>, so each can be included alone (POSIX's layout).
 */
#ifndef ULIB_BITS_TIME_H
#define ULIB_BITS_TIME_H

typedef long time_t;
typedef long suseconds_t;
typedef int clockid_t;

struct timespec {
	time_t tv_sec;
	long tv_nsec;
};

struct timeval {
	time_t tv_sec;
	suseconds_t tv_usec;
};

#define CLOCK_REALTIME  0      /* wall time since 1970 (from the RTC at boot) */
#define CLOCK_MONOTONIC 1      /* time since boot: SYS_time */

#endif
