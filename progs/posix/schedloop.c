/*
 * schedloop: a thread that loops on pthread_setschedparam and
 * pthread_setschedprio of another thread (here main, left at SCHED_OTHER
 * 0) and on pthread_cancel of a third (which has cancellation disabled
 * and yields until told to stop) while main sleeps 100 ms, then stops
 * them (the public suite's pthread_setschedparam 5-1 and pthread_cancel
 * 5-2 shapes, without their signals). On det the calls are turns, as
 * the signal calls are (thread_turn), so main's sleep ends; before, the
 * looping thread kept the token and the program hung there.
 * @result {"name": "schedloop", "calls": N, "checks": C, "failures": F}
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#define CHECK_NAME "schedloop"
#include <check.h>

static volatile int stop;
static pthread_t mainth;
static long calls;

static void *target(void *a)
{
	CHECK(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, 0) == 0);
	while (!stop)
		sched_yield();
	return a;
}

static void *loop(void *a)
{
	pthread_t *tg = a;
	struct sched_param sp = { 0 };
	while (!stop) {
		CHECK(pthread_setschedparam(mainth, SCHED_OTHER, &sp) == 0);
		CHECK(pthread_setschedprio(mainth, 0) == 0);
		CHECK(pthread_cancel(*tg) == 0);
		calls++;
	}
	return 0;
}

int main(void)
{
	pthread_t t, tg;
	mainth = pthread_self();
	CHECK(pthread_create(&tg, 0, target, 0) == 0);
	CHECK(pthread_create(&t, 0, loop, &tg) == 0);
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	nanosleep(&ts, 0);
	stop = 1;
	CHECK(pthread_join(t, 0) == 0);
	CHECK(pthread_join(tg, 0) == 0);
	CHECK(calls > 0);
	int pol = -1;
	struct sched_param sp;
	CHECK(pthread_getschedparam(mainth, &pol, &sp) == 0 && pol == SCHED_OTHER && sp.sched_priority == 0);
	printf("@result {\"name\": \"schedloop\", \"calls\": %ld, \"checks\": %d, \"failures\": %d}\n",
	       calls, checks, failures);
	return failures != 0;
}
