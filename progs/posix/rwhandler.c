/*
 * rwhandler: a signal handler runs in a thread blocked in
 * pthread_rwlock_timedrdlock/timedwrlock, as LTP's timed*lock 6-1 and 6-2
 * do it (every signal blocked in the handler), for both kinds of wait:
 *
 *   expire  main keeps the write lock: the handler returns at once and
 *           the wait goes on until its deadline (ETIMEDOUT, no sooner
 *           than the timeout), holding nothing; main's unlock then leaves
 *           the lock free (a trywrlock succeeds) and destroy is 0;
 *   take    the handler sleeps twice the timeout and main unlocks while
 *           it sleeps: the wait ends with the lock (0, not ETIMEDOUT, as
 *           POSIX's "resumes waiting as if not interrupted" with the lock
 *           free by then); the thread unlocks it, and the lock is free;
 *   keep    as take, but the thread exits holding it (LTP's 6-2): a try
 *           fails with EBUSY, destroy is 0, and a reader's hold can
 *           still be released.
 * Each round checks that the handler ran exactly once, in that thread.
 * @result {"name": "rwhandler", "checks": N, "failures": F}, exit 0 iff F == 0.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK_NAME "rwhandler"
#include <check.h>

#define TIMEOUT_MS 200

enum { EXPIRE, TAKE, KEEP };

static pthread_rwlock_t l;
static pthread_t th;
static volatile int in_wait, handled, in_handler, sleep_ms, wrong_thread, unlocked;

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void handler(int sig)
{
	(void)sig;
	wrong_thread |= !pthread_equal(pthread_self(), th);
	in_handler = 1;
	if (sleep_ms) {
		usleep(sleep_ms * 1000);
		/* and past main's unlock: a host that stalled main for
		   longer than the sleep made main see the handler done */
		while (!unlocked)
			usleep(1000);
	}
	handled++;
}

struct out { int r; uint64_t waited; };

static void *waiter(void *arg)
{
	long mode = (long)arg;
	int wr = mode & 1, kind = (int)(mode >> 1);
	static struct out res;       /* (one waiter at a time) */
	struct out *o = &res;
	struct timespec ts;
	uint64_t t0 = mono_ms();     /* before the deadline's base: a stall between */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += TIMEOUT_MS * 1000000L;
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_sec++, ts.tv_nsec -= 1000000000L;
	in_wait = 1;
	o->r = wr ? pthread_rwlock_timedwrlock(&l, &ts) : pthread_rwlock_timedrdlock(&l, &ts);
	o->waited = mono_ms() - t0;
	if (o->r == 0 && kind == TAKE)
		o->r = pthread_rwlock_unlock(&l) ? -1 : 0;
	return o;
}

static void round_of(int wr, int kind)
{
	CHECK(pthread_rwlock_init(&l, 0) == 0);
	CHECK(pthread_rwlock_wrlock(&l) == 0);
	in_wait = handled = in_handler = wrong_thread = unlocked = 0;
	sleep_ms = kind == EXPIRE ? 0 : 2 * TIMEOUT_MS;
	CHECK(pthread_create(&th, 0, waiter, (void *)(long)(kind << 1 | wr)) == 0);
	while (!in_wait)
		usleep(1000);
	usleep(50000);                   /* (it waits for the lock now) */
	CHECK(pthread_kill(th, SIGUSR1) == 0);
	if (kind != EXPIRE) {
		/* no bound here: a handler never run is a hang the harness's
		   timeout reports, and a bound of wall time failed it on a
		   busy host (prio and fifo at -smp 2, once each in full runs) */
		while (!in_handler)
			usleep(1000);
		CHECK(in_handler && !handled);       /* main unlocks while it sleeps */
		CHECK(pthread_rwlock_unlock(&l) == 0);
		unlocked = 1;
	}
	struct out *o = 0;
	CHECK(pthread_join(th, (void **)&o) == 0 && o);
	if (!o)
		return;
	CHECK(handled == 1 && !wrong_thread);
	if (kind == EXPIRE) {
		CHECK(o->r == ETIMEDOUT);
		CHECK(o->waited >= TIMEOUT_MS - 1);
		CHECK(pthread_rwlock_unlock(&l) == 0);
	} else
		CHECK(o->r == 0);
	if (kind == KEEP) {
		CHECK(pthread_rwlock_trywrlock(&l) == EBUSY);   /* the exited thread's hold */
		if (!wr)
			CHECK(pthread_rwlock_unlock(&l) == 0);  /* a read hold: anyone's unlock */
	}
	if (kind != KEEP || !wr) {
		CHECK(pthread_rwlock_trywrlock(&l) == 0);
		CHECK(pthread_rwlock_unlock(&l) == 0);
		CHECK(pthread_rwlock_tryrdlock(&l) == 0);
		CHECK(pthread_rwlock_unlock(&l) == 0);
	}
	CHECK(pthread_rwlock_destroy(&l) == 0);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigfillset(&sa.sa_mask);         /* every signal blocked in the handler (LTP's) */
	CHECK(sigaction(SIGUSR1, &sa, 0) == 0);
	for (int kind = EXPIRE; kind <= KEEP; kind++)
		for (int wr = 0; wr < 2; wr++)
			round_of(wr, kind);
	printf("@result {\"name\": \"rwhandler\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
