/* gettimeofday and the timeval helpers. */
#ifndef ULIB_SYS_TIME_H
#define ULIB_SYS_TIME_H

#include <bits/time.h>
#include <sys/types.h>

struct timezone {
	int tz_minuteswest, tz_dsttime;
};

int gettimeofday(struct timeval *tv, void *tz);   /* tz, if given, is UTC */
int settimeofday(const struct timeval *tv, const void *tz);   /* as clock_settime(CLOCK_REALTIME) */
int utimes(const char *path, const struct timeval tv[2]);    /* (ulib/libc/fmode.c) */

/* Interval timers (ulib/posix/timer.c): ITIMER_REAL sends SIGALRM (it is
   the timer alarm() sets); ITIMER_VIRTUAL (SIGVTALRM) and ITIMER_PROF
   (SIGPROF) count the program's processor time (ulib/posix/itimer.c: both
   the whole CLOCK_PROCESS_CPUTIME_ID, which does not split user time). */
#define ITIMER_REAL    0
#define ITIMER_VIRTUAL 1
#define ITIMER_PROF    2
struct itimerval {
	struct timeval it_interval;    /* the period after the first expiry; 0: one-shot */
	struct timeval it_value;       /* time to the next expiry; 0: disarmed */
};
int setitimer(int which, const struct itimerval *v, struct itimerval *old);
int getitimer(int which, struct itimerval *v);

#define timerisset(t)  ((t)->tv_sec || (t)->tv_usec)
#define timerclear(t)  ((t)->tv_sec = (t)->tv_usec = 0)
/* glibc's conversions (<sys/time.h> under _GNU_SOURCE/_DEFAULT_SOURCE) */
#define TIMEVAL_TO_TIMESPEC(tv, ts) \
	do { (ts)->tv_sec = (tv)->tv_sec; (ts)->tv_nsec = (tv)->tv_usec * 1000; } while (0)
#define TIMESPEC_TO_TIMEVAL(tv, ts) \
	do { (tv)->tv_sec = (ts)->tv_sec; (tv)->tv_usec = (ts)->tv_nsec / 1000; } while (0)
#define timercmp(a, b, op) ((a)->tv_sec == (b)->tv_sec ? \
	(a)->tv_usec op (b)->tv_usec : (a)->tv_sec op (b)->tv_sec)
#define timeradd(a, b, r) do { \
	(r)->tv_sec = (a)->tv_sec + (b)->tv_sec; \
	(r)->tv_usec = (a)->tv_usec + (b)->tv_usec; \
	if ((r)->tv_usec >= 1000000) { (r)->tv_sec++; (r)->tv_usec -= 1000000; } \
} while (0)
#define timersub(a, b, r) do { \
	(r)->tv_sec = (a)->tv_sec - (b)->tv_sec; \
	(r)->tv_usec = (a)->tv_usec - (b)->tv_usec; \
	if ((r)->tv_usec < 0) { (r)->tv_sec--; (r)->tv_usec += 1000000; } \
} while (0)

#endif
