/*
 * cancelorder: pthread_cancel of an asleep thread with asynchronous
 * cancelability returns before that thread's cleanup runs. POSIX has
 * the cancel act asynchronously to its caller; on Linux pthread_cancel
 * is one tgkill and the target's wake-up takes longer than the caller's
 * next statement, and the public suite's pthread_cancel 3-1 reads the
 * clock after pthread_cancel returns and fails if the cleanup's reading
 * is earlier. Here, before, pthread_cancel also interrupted a thread it
 * had just woken: on tutor and prio at -smp 2 the woken thread ran its
 * cleanup on its own VP meanwhile, det handed it the token, and on naive
 * at -smp 1 the kick of the caller's own VP gave the caller a timed
 * wait's turn. ROUNDS threads, one at a time, asleep for good; then
 * LOOPS threads that sleep period by period while main does too (the
 * public test's shape: the thread wakes and sleeps again on a VP of its
 * own). Each counts in its cleanup whether main had returned from
 * pthread_cancel yet (harness/tests/test_cancelorder.py).
 * Prints @result {"name":"cancelorder",...}.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 100
#define LOOPS 30

static volatile int asleep, returned, early;

static void cleanup(void *arg)
{
	(void)arg;
	if (!__atomic_load_n(&returned, __ATOMIC_SEQ_CST))
		early++;
}

/* The public test's shape: the thread sleeps in a loop, period for
   period with main, so it wakes and sleeps again on a VP of its own */
static volatile int looping;
static const struct timespec period = { 0, 50 * 1000 * 1000 };

static void *looper(void *arg)
{
	(void)arg;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, 0);
	pthread_cleanup_push(cleanup, 0);
	looping = 1;
	while (looping)
		nanosleep(&period, 0);
	pthread_cleanup_pop(0);
	return 0;
}

static void *sleeper(void *arg)
{
	(void)arg;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, 0);
	pthread_cleanup_push(cleanup, 0);
	asleep = 1;
	for (;;)
		sleep(5);
	pthread_cleanup_pop(0);
	return 0;
}

int main(void)
{
	struct timespec d = { 0, 20 * 1000 * 1000 };
	int cancelled = 0;
	/* As the public test: main (and so each thread, which inherits
	   it) at SCHED_FIFO 30, where a thread woken does not take the CPU
	   from one of its own priority. */
	struct sched_param sp = { .sched_priority = 30 };
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	for (int i = 0; i < ROUNDS; i++) {
		pthread_t t;
		void *r;
		asleep = returned = 0;
		pthread_create(&t, 0, sleeper, 0);
		while (!asleep)
			nanosleep(&d, 0);
		nanosleep(&d, 0);            /* it is in its sleep */
		pthread_cancel(t);
		__atomic_store_n(&returned, 1, __ATOMIC_SEQ_CST);
		pthread_join(t, &r);
		cancelled += r == PTHREAD_CANCELED;
	}
	int early1 = early, cancelled2 = 0;
	early = 0;
	for (int i = 0; i < LOOPS; i++) {
		pthread_t t;
		void *r;
		looping = returned = 0;
		pthread_create(&t, 0, looper, 0);
		while (!looping)
			nanosleep(&period, 0);
		pthread_cancel(t);
		__atomic_store_n(&returned, 1, __ATOMIC_SEQ_CST);
		pthread_join(t, &r);
		cancelled2 += r == PTHREAD_CANCELED;
	}
	printf("@result {\"name\":\"cancelorder\",\"rounds\":%d,\"cancelled\":%d,\"early\":%d,"
	       "\"loops\":%d,\"loop_cancelled\":%d,\"loop_early\":%d}\n",
	       ROUNDS, cancelled, early1, LOOPS, cancelled2, early);
	return 0;
}
