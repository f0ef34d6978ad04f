/*
 * clockset: setting CLOCK_REALTIME (clock_settime, settimeofday:
 * SYS_clockset, kernel/rtclock.c), as a conformance suite run as root on
 * Linux expects. Set forward by an hour, it reads back the new time
 * advancing from there; CLOCK_MONOTONIC does not move; another clock, a
 * bad tv_nsec or a negative tv_sec is EINVAL. An absolute
 * clock_nanosleep on CLOCK_REALTIME follows the clock: a thread sets it
 * forward past a sleeper's deadline and the sleep ends early; set back,
 * a sleep lasts longer by that much. So does every other absolute wait
 * on CLOCK_REALTIME, all at once, each in a thread of its own (waits()).
 * The clock is put back at the end. Each CHECK counts; @result {"name":
 * "clockset", "checks": N, "failures": F, "fwd_ms": ..., "back_ms": ...,
 * "waits": {KIND: [fwd ms, back ms], ...}} (monotonic ms waited).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <mqueue.h>
#include <threads.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <time.h>
#include <signal.h>
#include <sys/time.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>

#define CHECK_NAME "clockset"
#include <check.h>
#include <forkaudit.h>

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

/* ---- every other kind of wait, at once ---- */

enum { W_COND, W_CLOCKWAIT, W_MUTEX, W_RDLOCK, W_WRLOCK, W_SEM, W_JOIN, W_MQRECV, W_MQSEND,
       W_FUTEX, W_C11, W_PSHCOND, W_PSHSEM, W_NSLEEP, W_TIMER, NW };
static const char *wname[NW] = { "cond", "clockwait", "mutex", "rdlock", "wrlock", "sem", "join",
				 "mq_receive", "mq_send", "futex", "c11_cnd", "pshared_cond",
				 "pshared_sem", "nanosleep", "timer" };
static struct timespec wdl;              /* the round's deadline, on CLOCK_REALTIME */
static pthread_mutex_t wm = PTHREAD_MUTEX_INITIALIZER, held;
static pthread_cond_t wc = PTHREAD_COND_INITIALIZER, pc;
static pthread_mutex_t pm;
static pthread_rwlock_t wlk, rlk;
static sem_t ws, ps, jsem;
static mqd_t mq, mqf;               /* empty, full */
static int fword;
static mtx_t cm;
static cnd_t cc;
static pthread_t blocker;
static int64_t took[NW];
static sem_t tsem;                       /* the timer's SIGEV_THREAD function posts it */

static void fired(union sigval v)
{
	(void)v;
	sem_post(&tsem);
}

static void *block_fn(void *a)
{
	(void)a;
	while (sem_wait(&jsem) != 0)
		;
	return 0;
}

/* One wait of kind k to wdl; 1 if it ended as a timeout should. */
static int wait_one(int k)
{
	char buf[8];
	switch (k) {
	case W_COND:
	case W_CLOCKWAIT: {
		pthread_mutex_lock(&wm);
		int r = k == W_COND ? pthread_cond_timedwait(&wc, &wm, &wdl)
				    : pthread_cond_clockwait(&wc, &wm, CLOCK_REALTIME, &wdl);
		pthread_mutex_unlock(&wm);
		return r == ETIMEDOUT;
	}
	case W_MUTEX: return pthread_mutex_timedlock(&held, &wdl) == ETIMEDOUT;
	case W_RDLOCK: return pthread_rwlock_timedrdlock(&wlk, &wdl) == ETIMEDOUT;
	case W_WRLOCK: return pthread_rwlock_timedwrlock(&rlk, &wdl) == ETIMEDOUT;
	case W_SEM: return sem_timedwait(&ws, &wdl) == -1 && errno == ETIMEDOUT;
	case W_JOIN: return pthread_timedjoin_np(blocker, 0, &wdl) == ETIMEDOUT;
	case W_MQRECV: return mq_timedreceive(mq, buf, sizeof buf, 0, &wdl) == -1 && errno == ETIMEDOUT;
	case W_MQSEND: return mq_timedsend(mqf, "x", 1, 0, &wdl) == -1 && errno == ETIMEDOUT;
	case W_FUTEX:
		return syscall(SYS_futex, &fword, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0, &wdl, 0,
			       FUTEX_BITSET_MATCH_ANY) == -1 && errno == ETIMEDOUT;
	case W_C11: {
		mtx_lock(&cm);
		int r = cnd_timedwait(&cc, &cm, &wdl);
		mtx_unlock(&cm);
		return r == thrd_timedout;
	}
	case W_PSHCOND: {
		pthread_mutex_lock(&pm);
		int r = pthread_cond_timedwait(&pc, &pm, &wdl);
		pthread_mutex_unlock(&pm);
		return r == ETIMEDOUT;
	}
	case W_PSHSEM: return sem_timedwait(&ps, &wdl) == -1 && errno == ETIMEDOUT;
	case W_NSLEEP: return clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &wdl, 0) == 0;
	case W_TIMER: {                  /* a TIMER_ABSTIME timer: waits until it fires */
		struct sigevent ev = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = fired };
		timer_t id;
		struct itimerspec it = { .it_value = wdl };
		if (timer_create(CLOCK_REALTIME, &ev, &id) || timer_settime(id, TIMER_ABSTIME, &it, 0))
			return 0;
		while (sem_wait(&tsem) != 0)
			;
		return timer_delete(id) == 0;
	}
	}
	return 0;
}

static void *waiter(void *a)
{
	int k = (int)(intptr_t)a;
	int64_t t0 = ns(CLOCK_MONOTONIC);
	int ok = wait_one(k);
	took[k] = (ns(CLOCK_MONOTONIC) - t0) / MS;
	CHECK(ok);
	CHECK(ns(CLOCK_REALTIME) >= wdl.tv_sec * NS + wdl.tv_nsec);   /* never before its time */
	return 0;
}

static void waits_setup(void)
{
	pshared_mutex_cond(&pm, &pc);
	CHECK(pthread_mutex_init(&held, 0) == 0);
	CHECK(pthread_rwlock_init(&wlk, 0) == 0 && pthread_rwlock_init(&rlk, 0) == 0);
	CHECK(sem_init(&ws, 0, 0) == 0 && sem_init(&ps, 1, 0) == 0 && sem_init(&jsem, 0, 0) == 0);
	CHECK(sem_init(&tsem, 0, 0) == 0);
	CHECK(mtx_init(&cm, mtx_plain) == thrd_success && cnd_init(&cc) == thrd_success);
	struct mq_attr at = { .mq_maxmsg = 1, .mq_msgsize = 8 };
	mq_unlink("/clockset");
	mq_unlink("/clockfull");
	CHECK((mq = mq_open("/clockset", O_RDWR | O_CREAT, 0600, &at)) != (mqd_t)-1);
	CHECK((mqf = mq_open("/clockfull", O_RDWR | O_CREAT, 0600, &at)) != (mqd_t)-1);
	CHECK(mq_send(mqf, "f", 1, 0) == 0);
}

/* Every kind waits to now + 1 s on CLOCK_REALTIME, in threads of its
   own; after 100 ms the clock moves by shift. took[] gets the ms each
   waited. mq_send waits on a full queue, mq_receive on an empty one. */
static void waits(int64_t shift)
{
	pthread_t th[NW];
	CHECK(pthread_mutex_lock(&held) == 0);
	CHECK(pthread_rwlock_wrlock(&wlk) == 0 && pthread_rwlock_rdlock(&rlk) == 0);
	CHECK(pthread_create(&blocker, 0, block_fn, 0) == 0);
	int64_t t = ns(CLOCK_REALTIME) + NS;
	wdl.tv_sec = t / NS, wdl.tv_nsec = t % NS;
	for (int k = 0; k < NW; k++)
		CHECK(pthread_create(&th[k], 0, waiter, (void *)(intptr_t)k) == 0);
	struct timespec d = { 0, 100 * MS };
	nanosleep(&d, 0);
	CHECK(set_ns(ns(CLOCK_REALTIME) + shift) == 0);
	for (int k = 0; k < NW; k++)
		CHECK(pthread_join(th[k], 0) == 0);
	CHECK(sem_post(&jsem) == 0 && pthread_join(blocker, 0) == 0);
	CHECK(pthread_rwlock_unlock(&wlk) == 0 && pthread_rwlock_unlock(&rlk) == 0);
	CHECK(pthread_mutex_unlock(&held) == 0);
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
	/* every other wait: 10 s forward, then 1 s back */
	int64_t wfwd[NW], wback[NW];
	waits_setup();
	waits(10 * NS);
	for (int k = 0; k < NW; k++)
		wfwd[k] = took[k];
	waits(-NS);
	for (int k = 0; k < NW; k++)
		wback[k] = took[k];
	/* put it back: as if it had never been set (the 10 s and -1 s twice) */
	CHECK(set_ns(r0 + (ns(CLOCK_MONOTONIC) - m0)) == 0);
	char line[1024];
	int n = 0;
	for (int k = 0; k < NW; k++)
		n += snprintf(line + n, sizeof line - n, "%s\"%s\": [%lld, %lld]", k ? ", " : "", wname[k],
			      (long long)wfwd[k], (long long)wback[k]);
	printf("@result {\"name\": \"clockset\", \"checks\": %d, \"failures\": %d, "
	       "\"fwd_ms\": %lld, \"back_ms\": %lld, \"waits\": {%s}}\n", checks, failures,
	       (long long)fwd, (long long)back, line);
	return failures != 0;
}
