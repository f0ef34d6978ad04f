/* sched_*: priority ranges (Linux's: FIFO and RR 1..99, OTHER 0),
   yield, the calling process's parameters and policy with Linux's
   ESRCH for another pid and EINVAL for a negative one, RR interval;
   pthread_setschedparam/setschedprio's EINVAL. */
#include "conf.h"

#define NOPID 32000   /* a pid no process has here */

static void ranges(void)
{
	EQ(sched_get_priority_max(SCHED_FIFO), 99);
	EQ(sched_get_priority_min(SCHED_FIFO), 1);
	EQ(sched_get_priority_max(SCHED_RR), 99);
	EQ(sched_get_priority_min(SCHED_RR), 1);
	EQ(sched_get_priority_max(SCHED_OTHER), 0);
	EQ(sched_get_priority_min(SCHED_OTHER), 0);
#ifdef SCHED_BATCH
	EQ(sched_get_priority_max(SCHED_BATCH), 0);
	EQ(sched_get_priority_min(SCHED_BATCH), 0);
#else
	conf_check(0, "SCHED_BATCH defined (glibc, _GNU_SOURCE)", __LINE__, 0);
#endif
#ifdef SCHED_IDLE
	EQ(sched_get_priority_max(SCHED_IDLE), 0);
#else
	conf_check(0, "SCHED_IDLE defined (glibc, _GNU_SOURCE)", __LINE__, 0);
#endif
	ERRNO(sched_get_priority_max(12345), EINVAL);
	ERRNO(sched_get_priority_min(-1), EINVAL);
	EQ(sched_yield(), 0);
}

static void process(void)
{
	struct sched_param p = { .sched_priority = -5 };
	struct timespec ts = { -1, -1 };
	EQ(sched_getparam(0, &p), 0);
	EQ(p.sched_priority, 0);
	EQ(sched_getparam(getpid(), &p), 0);
	ERRNO(sched_getparam(-1, &p), EINVAL);
	ERRNO(sched_getparam(NOPID, &p), ESRCH);
	EQ(sched_getscheduler(0), SCHED_OTHER);
	EQ(sched_getscheduler(getpid()), SCHED_OTHER);
	ERRNO(sched_getscheduler(-1), EINVAL);
	ERRNO(sched_getscheduler(NOPID), ESRCH);
	p.sched_priority = 5;
	ERRNO(sched_setparam(0, &p), EINVAL);            /* OTHER takes 0 only */
	ERRNO(sched_setscheduler(0, 12345, &p), EINVAL);
	ERRNO(sched_setscheduler(0, SCHED_OTHER, &p), EINVAL);
	p.sched_priority = 100;
	ERRNO(sched_setscheduler(0, SCHED_FIFO, &p), EINVAL);
	ERRNO(sched_setparam(-1, &p), EINVAL);
	p.sched_priority = 0;
	ERRNO(sched_setparam(NOPID, &p), ESRCH);
	ERRNO(sched_setscheduler(NOPID, SCHED_OTHER, &p), ESRCH);
	EQ(sched_setparam(0, &p), 0);
	/* Success is 0 (glibc), whatever the policy was before: a caller
	   already SCHED_FIFO (a forked child inherits it) must not read
	   its former policy, 1, as a failure. */
	p.sched_priority = 3;
	EQ(sched_setscheduler(0, SCHED_FIFO, &p), 0);
	EQ(sched_setscheduler(getpid(), SCHED_FIFO, &p), 0);
	EQ(sched_getscheduler(0), SCHED_FIFO);
	p.sched_priority = 0;
	EQ(sched_setscheduler(0, SCHED_OTHER, &p), 0);
	EQ(sched_getscheduler(0), SCHED_OTHER);
	EQ(sched_rr_get_interval(0, &ts), 0);
	CK(ts.tv_sec >= 0 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000);
	ERRNO(sched_rr_get_interval(-1, &ts), EINVAL);
	ERRNO(sched_rr_get_interval(NOPID, &ts), ESRCH);
}

/* A thread changing its own policy: read back, and restored. */
static void *thread_sched(void *a)
{
	struct sched_param p = { .sched_priority = 40 }, q;
	int pol = -1, bad = 0;
	(void)a;
	bad |= pthread_setschedparam(pthread_self(), SCHED_RR, &p) != 0;
	bad |= (pthread_getschedparam(pthread_self(), &pol, &q) != 0 || pol != SCHED_RR || q.sched_priority != 40) << 1;
	bad |= (sched_getscheduler(0) != SCHED_RR) << 2;
	bad |= (pthread_setschedprio(pthread_self(), 41) != 0) << 3;
	pthread_getschedparam(pthread_self(), &pol, &q);
	bad |= (q.sched_priority != 41) << 4;
	bad |= (pthread_setschedprio(pthread_self(), 100) != EINVAL) << 5;
	p.sched_priority = 0;
	bad |= (pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) != EINVAL) << 6;
	bad |= (pthread_setschedparam(pthread_self(), 12345, &p) != EINVAL) << 7;
	p.sched_priority = 0;
#ifdef SCHED_BATCH
	bad |= (pthread_setschedparam(pthread_self(), SCHED_BATCH, &p) != 0) << 9;
	bad |= (sched_getscheduler(0) != SCHED_BATCH) << 10;
	p.sched_priority = 1;
	bad |= (pthread_setschedparam(pthread_self(), SCHED_BATCH, &p) != EINVAL) << 11;
	p.sched_priority = 0;
#endif
	bad |= (pthread_setschedparam(pthread_self(), SCHED_OTHER, &p) != 0) << 8;
	return (void *)(long)bad;
}

void area_sched(void)
{
	void *r = (void *)-1L;
	ranges();
	process();
	pthread_join(conf_start(thread_sched, NULL), &r);
	EQ((long)r, 0);
}
