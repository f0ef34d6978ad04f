/*
 * clockset: setting CLOCK_REALTIME (clock_settime, settimeofday:
 * SYS_clockset, kernel/rtclock.c), as a conformance suite run as root on
 * Linux expects. Set forward by an hour, it reads back the new time
 * advancing from there; CLOCK_MONOTONIC does not move; another clock, a
 * bad tv_nsec or a negative tv_sec is EINVAL. Absolute waits on
 * CLOCK_REALTIME follow the clock (clock_nanosleep, pthread_cond_timedwait,
 * sem_timedwait, pthread_mutex_timedlock): main sets it forward past a
 * waiter's deadline and the wait ends early; set back, it lasts longer
 * by that much. The clock is put back at the end. Each CHECK counts;
 * @result {"name": "clockset", "checks": N, "failures": F, "fwd_ms":
 * [4], "back_ms": [4]} (monotonic ms each way waited).
 */
#include <pthread.h>
#include <semaphore.h>
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

/* A thread waits until realtime T = now + 1 s (absolute) in one of four
   ways; after 100 ms main moves the clock by `shift`. Returns the
   monotonic ms the wait took. */
enum { W_SLEEP, W_COND, W_SEM, W_MUTEX, NWAYS };
static const char *const way_name[NWAYS] = { "clock_nanosleep", "cond_timedwait", "sem_timedwait",
					     "mutex_timedlock" };
static int64_t wait_start, wait_end;
static struct timespec deadline;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t sem;

static void *waiter(void *a)
{
	int way = (int)(intptr_t)a, r = -1;
	wait_start = ns(CLOCK_MONOTONIC);
	switch (way) {
	case W_SLEEP:
		r = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &deadline, 0);
		break;
	case W_COND:
		pthread_mutex_lock(&mu);
		do
			r = pthread_cond_timedwait(&cv, &mu, &deadline);
		while (r == 0);          /* (no one signals: a 0 is spurious) */
		pthread_mutex_unlock(&mu);
		break;
	case W_SEM:
		r = sem_timedwait(&sem, &deadline) ? errno : 0;
		break;
	case W_MUTEX:
		r = pthread_mutex_timedlock(&held, &deadline);
		break;
	}
	wait_end = ns(CLOCK_MONOTONIC);
	return (void *)(intptr_t)r;
}

static int64_t moved_wait(int way, int64_t shift)
{
	int64_t t = ns(CLOCK_REALTIME) + NS;
	deadline.tv_sec = t / NS, deadline.tv_nsec = t % NS;
	pthread_t th;
	CHECK(pthread_create(&th, 0, waiter, (void *)(intptr_t)way) == 0);
	struct timespec d = { 0, 100 * MS };
	nanosleep(&d, 0);
	CHECK(set_ns(ns(CLOCK_REALTIME) + shift) == 0);
	void *r;
	CHECK(pthread_join(th, &r) == 0);
	CHECK((intptr_t)r == (way == W_SLEEP ? 0 : ETIMEDOUT));
	CHECK(ns(CLOCK_REALTIME) >= t);  /* it never ends before its time */
	return (wait_end - wait_start) / MS;
}

int main(void)
{
	int64_t r0 = ns(CLOCK_REALTIME), m0 = ns(CLOCK_MONOTONIC);
	errors();
	forward();
	/* forward past the deadline: ends soon after the set, not at 1 s;
	   back by 1 s: lasts about 2 s, not 1 */
	int64_t fwd[NWAYS], back[NWAYS];
	sem_init(&sem, 0, 0);
	pthread_mutex_lock(&held);
	for (int w = 0; w < NWAYS; w++) {
		fwd[w] = moved_wait(w, 10 * NS);
		back[w] = moved_wait(w, -NS);
		if (!(fwd[w] >= 90 && fwd[w] < 900) || !(back[w] >= 1900 && back[w] < 3000))
			printf("clockset: %s: %lld ms (set forward), %lld ms (set back)\n",
			       way_name[w], (long long)fwd[w], (long long)back[w]);
		CHECK(fwd[w] >= 90 && fwd[w] < 900);
		CHECK(back[w] >= 1900 && back[w] < 3000);
	}
	pthread_mutex_unlock(&held);
	/* a relative sleep does not follow it */
	int64_t m1 = ns(CLOCK_MONOTONIC);
	struct timespec d = { 0, 50 * MS };
	CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &d, 0) == 0);
	CHECK(ns(CLOCK_MONOTONIC) - m1 >= 50 * MS);
	/* put it back: as if it had never been set (the 10 s and -1 s) */
	CHECK(set_ns(r0 + (ns(CLOCK_MONOTONIC) - m0)) == 0);
	printf("@result {\"name\": \"clockset\", \"checks\": %d, \"failures\": %d, "
	       "\"fwd_ms\": [%lld, %lld, %lld, %lld], \"back_ms\": [%lld, %lld, %lld, %lld]}\n",
	       checks, failures, (long long)fwd[0], (long long)fwd[1], (long long)fwd[2],
	       (long long)fwd[3], (long long)back[0], (long long)back[1], (long long)back[2],
	       (long long)back[3]);
	return failures != 0;
}
