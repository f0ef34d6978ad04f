/*
 * clockset: setting CLOCK_REALTIME (clock_settime, settimeofday:
 * SYS_clockset, kernel/rtclock.c), as a conformance suite run as root on
 * Linux expects. Set forward by an hour, it reads back the new time
 * advancing from there; CLOCK_MONOTONIC does not move; another clock, a
 * bad tv_nsec or a negative tv_sec is EINVAL. An absolute
 * clock_nanosleep on CLOCK_REALTIME follows the clock: a thread sets it
 * forward past a sleeper's deadline and the sleep ends early; set back,
 * a sleep lasts longer by that much. The clock is put back at the end.
 * Each CHECK counts; @result {"name": "clockset", "checks": N,
 * "failures": F, "fwd_ms": ..., "back_ms": ...} (monotonic ms slept).
 */
#include <pthread.h>
#include <time.h>
#include <sys/time.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>

#define CHECK_NAME "clockset"
#include <check.h>

#define NS 1000000000LL
#define MS 1000000LL
#define HOUR (3600 * NS)

static int64_t ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * NS + t.tv_nsec;
}

static int set_ns(int64_t v)
{
	struct timespec t = { v / NS, v % NS };
	return clock_settime(CLOCK_REALTIME, &t);
}

static void errors(void)
{
	struct timespec t = { 100, 0 };
	errno = 0;
	CHECK(clock_settime(CLOCK_MONOTONIC, &t) == -1 && errno == EINVAL);
	CHECK(clock_settime(CLOCK_PROCESS_CPUTIME_ID, &t) == -1 && errno == EINVAL);
	CHECK(clock_settime(12345, &t) == -1 && errno == EINVAL);
	t.tv_nsec = NS;
	CHECK(clock_settime(CLOCK_REALTIME, &t) == -1 && errno == EINVAL);
	t.tv_nsec = -1;
	CHECK(clock_settime(CLOCK_REALTIME, &t) == -1 && errno == EINVAL);
	t.tv_sec = -1, t.tv_nsec = 0;
	CHECK(clock_settime(CLOCK_REALTIME, &t) == -1 && errno == EINVAL);
	struct timeval tv = { 100, 1000000 };
	CHECK(settimeofday(&tv, 0) == -1 && errno == EINVAL);
}

/* An hour forward: read back within 50 ms of guest time, monotonic
   unmoved; then settimeofday an hour back to where it was. */
static void forward(void)
{
	int64_t m0 = ns(CLOCK_MONOTONIC), r0 = ns(CLOCK_REALTIME);
	CHECK(set_ns(r0 + HOUR) == 0);
	int64_t r1 = ns(CLOCK_REALTIME), m1 = ns(CLOCK_MONOTONIC);
	CHECK(r1 >= r0 + HOUR && r1 - (r0 + HOUR) <= (m1 - m0) + 50 * MS);
	CHECK(time(0) >= (r0 + HOUR) / NS);
	CHECK(m1 >= m0 && m1 - m0 < 50 * MS);
	struct timespec d = { 0, 20 * MS };
	nanosleep(&d, 0);                /* it advances from there */
	int64_t r2 = ns(CLOCK_REALTIME), m2 = ns(CLOCK_MONOTONIC);
	CHECK(r2 - r1 >= 20 * MS && (r2 - r1) - (m2 - m1) < 5 * MS && (m2 - m1) - (r2 - r1) < 5 * MS);
	struct timeval tv;
	int64_t back = ns(CLOCK_REALTIME) - HOUR;
	tv.tv_sec = back / NS, tv.tv_usec = (back % NS) / 1000;
	CHECK(settimeofday(&tv, 0) == 0);
	int64_t r3 = ns(CLOCK_REALTIME);
	CHECK(r3 >= back - 1000 && r3 - back < 50 * MS);
}

/* A thread sleeps until realtime T = now + 2 s (absolute); after 100 ms
   main moves the clock: +shift. Returns the monotonic ms the sleep took. */
static int64_t sleep_start, sleep_end;
static struct timespec deadline;

static void *sleeper(void *a)
{
	(void)a;
	sleep_start = ns(CLOCK_MONOTONIC);
	int r = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &deadline, 0);
	sleep_end = ns(CLOCK_MONOTONIC);
	return (void *)(intptr_t)r;
}

static int64_t moved_sleep(int64_t shift)
{
	int64_t t = ns(CLOCK_REALTIME) + 2 * NS;
	deadline.tv_sec = t / NS, deadline.tv_nsec = t % NS;
	pthread_t th;
	CHECK(pthread_create(&th, 0, sleeper, 0) == 0);
	struct timespec d = { 0, 100 * MS };
	nanosleep(&d, 0);
	CHECK(set_ns(ns(CLOCK_REALTIME) + shift) == 0);
	void *r;
	CHECK(pthread_join(th, &r) == 0 && r == 0);
	CHECK(ns(CLOCK_REALTIME) >= t);  /* it never ends before its time */
	return (sleep_end - sleep_start) / MS;
}

int main(void)
{
	int64_t r0 = ns(CLOCK_REALTIME), m0 = ns(CLOCK_MONOTONIC);
	errors();
	forward();
	/* forward past the deadline: ends soon after the set, not at 2 s */
	int64_t fwd = moved_sleep(10 * NS);
	CHECK(fwd >= 90 && fwd < 1000);
	/* back by 1 s: the sleep lasts about 3 s, not 2 */
	int64_t back = moved_sleep(-NS);
	CHECK(back >= 2900 && back < 4000);
	/* a relative sleep does not follow it */
	int64_t m1 = ns(CLOCK_MONOTONIC);
	struct timespec d = { 0, 50 * MS };
	CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &d, 0) == 0);
	CHECK(ns(CLOCK_MONOTONIC) - m1 >= 50 * MS);
	/* put it back: as if it had never been set (the 10 s and -1 s) */
	CHECK(set_ns(r0 + (ns(CLOCK_MONOTONIC) - m0)) == 0);
	printf("@result {\"name\": \"clockset\", \"checks\": %d, \"failures\": %d, "
	       "\"fwd_ms\": %lld, \"back_ms\": %lld}\n", checks, failures,
	       (long long)fwd, (long long)back);
	return failures != 0;
}
