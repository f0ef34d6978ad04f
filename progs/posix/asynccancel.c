/*
 * asynccancel: an asynchronous pthread_cancel, or a pthread_kill with a
 * handler, of a thread that only computes must be acted on (ulib/rt/
 * rt_sched.c's upcall handler, rt_switch.c's resume, spin_unlock's
 * deferred switch; ulib/rt/intr.c on kthread and naive).
 * harness/tests/test_asynccancel.py.
 *   asynccancel N   N rounds of each op (cancel, kill) and loop (clock:
 *                   reads the clock; lock: calls random(), which holds a
 *                   spin lock most of the time): start a spinner, wait
 *                   till it runs, wait 0, 0.2 or 2 ms, cancel or signal
 *                   it, join. A round whose spinner went on for 2 s of
 *                   guest time after the send is a miss (the bound is
 *                   only a fail-safe: a round acted on ends in
 *                   microseconds).
 */
#define CHECK_NAME "asynccancel"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <pthread.h>
#include <sched.h>
#include <animalib/result.h>
#include <check.h>
#include <sigcatch.h>

/* Counted from the moment main sends the cancel or signal, not from the
   spinner's start: a host that stalls main's CPU before it sends (a
   loaded CI host: test_asynccancel saw a few misses there, timer_late
   near 1,000) then costs no miss. Generous, since only a lost kick
   should reach it (a lost one per round made 29-168 misses, and 2 s
   each then ends the run at the test's timeout: a failure all the same). */
#define BOUND_MS 2000

static volatile int started, hit, lockloop;
static volatile long sent_ms;      /* when main sent it; 0: not yet */

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void on_sig(int s)
{
	(void)s;
	hit = 1;
}

/* Computes until a signal's handler ran (hit) or the bound: returns 1
   at the bound. Asynchronously cancellable when a is not 0. */
static void *spin(void *a)
{
	if (a)
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, 0);
	started = 1;
	while (!hit && (!sent_ms || now_ms() - sent_ms < BOUND_MS))
		if (lockloop)
			for (int i = 0; i < 16; i++)
				random();
	return (void *)(long)!hit;
}

/* One round; 1 if the cancel or signal was not acted on. */
static int round_(int cancel, int i)
{
	pthread_t t;
	void *r = 0;
	started = hit = 0;
	sent_ms = 0;
	CHECK(pthread_create(&t, 0, spin, (void *)(long)cancel) == 0);
	while (!started)
		sched_yield();
	static const long wait_ns[] = {0, 200000, 2000000};
	struct timespec w = {0, wait_ns[i % 3]};
	if (w.tv_nsec)
		nanosleep(&w, 0);
	sent_ms = now_ms();
	if (cancel)
		CHECK(pthread_cancel(t) == 0);
	else
		CHECK(pthread_kill(t, SIGUSR2) == 0);
	CHECK(pthread_join(t, &r) == 0);
	return cancel ? r != PTHREAD_CANCELED : r != 0;
}

int main(int argc, char **argv)
{
	struct result R;
	result_begin(&R, "asynccancel");
	int n = argc > 1 ? atoi(argv[1]) : 100;
	CHECK(sig_catch(SIGUSR2, on_sig, 0) == 0);
	static const char *names[] = {"cancel_clock", "cancel_lock", "kill_clock", "kill_lock"};
	long total = 0;
	for (int k = 0; k < 4; k++) {
		long miss = 0;
		lockloop = k & 1;
		for (int i = 0; i < n; i++)
			miss += round_(k < 2, i);
		result_int(&R, names[k], miss);
		total += miss;
	}
	result_int(&R, "rounds", n);
	result_int(&R, "misses", total);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures;
}
