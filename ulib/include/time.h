/* Time: clocks, sleeping, calendar (UTC only). docs/libc.md. */
#ifndef ULIB_TIME_H
#define ULIB_TIME_H

#include <stddef.h>
#include <bits/time.h>

#ifndef __clock_t_defined
#define __clock_t_defined
typedef long clock_t;
#endif
#define CLOCKS_PER_SEC 1000000L
#define TIME_UTC 1

/* More Linux clock ids: the monotonic and real-time ones read the same
   clocks as CLOCK_MONOTONIC and CLOCK_REALTIME; the CPU-time ones fail
   with EINVAL (the kernel keeps no per-space CPU time). */
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID  3
#define CLOCK_MONOTONIC_RAW      4
#define CLOCK_REALTIME_COARSE    5
#define CLOCK_MONOTONIC_COARSE   6
#define CLOCK_BOOTTIME           7

struct tm {
	int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year, tm_wday, tm_yday, tm_isdst;
	long tm_gmtoff;
	const char *tm_zone;
};

int clock_gettime(clockid_t id, struct timespec *ts);
int clock_getres(clockid_t id, struct timespec *ts);
/* No clock can be set: CLOCK_REALTIME is the RTC's time at boot plus
   the monotonic clock, which absolute deadlines rely on (EPERM); the
   others cannot be set on Linux either (EINVAL). ulib/time.c */
int clock_settime(clockid_t id, const struct timespec *ts);
/* The CPU-time clock of process pid: this program's (0 or its own pid)
   is CLOCK_PROCESS_CPUTIME_ID; another is ESRCH (Anima's spaces do not
   read each other's clocks). Returns an error number, as POSIX says. */
int clock_getcpuclockid(int pid, clockid_t *clock);
int nanosleep(const struct timespec *req, struct timespec *rem);
int clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem);
#define TIMER_ABSTIME 1

/* POSIX timers (ulib/posix/timer.c, docs/libc.md) on CLOCK_REALTIME and
   CLOCK_MONOTONIC, notifying as struct sigevent (<signal.h>) says. */
#ifndef __timer_t_defined
#define __timer_t_defined
typedef void *timer_t;
#endif
struct itimerspec {
	struct timespec it_interval;   /* the period after the first expiry; 0: one-shot */
	struct timespec it_value;      /* time to the next expiry; 0: disarmed */
};
struct sigevent;
int timer_create(clockid_t clock, struct sigevent *ev, timer_t *timer);
int timer_settime(timer_t timer, int flags, const struct itimerspec *v, struct itimerspec *old);
int timer_gettime(timer_t timer, struct itimerspec *v);
int timer_getoverrun(timer_t timer);
int timer_delete(timer_t timer);
time_t time(time_t *t);
clock_t clock(void);            /* time since the program started, in us: no CPU-time accounting */
double difftime(time_t a, time_t b);
int timespec_get(struct timespec *ts, int base);

/* The only time zone is UTC: localtime is gmtime. */
extern char *tzname[2];         /* "UTC", "UTC" (ulib/libc/tz.c) */
extern long timezone;           /* 0 */
extern int daylight;            /* 0 */
void tzset(void);
char *strptime(const char *s, const char *fmt, struct tm *tm);   /* ulib/libc/strptime.c */
/* A date read by the templates in the file $DATEMSK (ulib/libc/getdate.c):
   0 and getdate_err set (1..8, POSIX's) if none takes it; getdate_r
   (GNU) returns that number instead, 0 when it fills *tm. */
extern int getdate_err;
struct tm *getdate(const char *s);
int getdate_r(const char *s, struct tm *tm);
struct tm *gmtime_r(const time_t *t, struct tm *tm);
struct tm *gmtime(const time_t *t);
struct tm *localtime_r(const time_t *t, struct tm *tm);
struct tm *localtime(const time_t *t);
time_t mktime(struct tm *tm);
time_t timegm(struct tm *tm);
size_t strftime(char *s, size_t n, const char *fmt, const struct tm *tm);
char *asctime(const struct tm *tm);
char *ctime(const time_t *t);
char *asctime_r(const struct tm *tm, char *buf);   /* buf: 26 bytes at least */
char *ctime_r(const time_t *t, char *buf);

#endif
