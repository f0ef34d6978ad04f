/*
 * condalarm: a pthread_cond_signal from a SIGALRM handler wakes the
 * condition's waiter while another thread only computes. Not
 * async-signal-safe by POSIX, but glibc does it and programs rely on it
 * (the Open POSIX suite's functional condvar tests).
 *
 * main creates a waiter, then a thread that computes for three times
 * the alarm's time, and joins the waiter, then the spinner. The waiter
 * takes the mutex, arms alarm(1) (the program's first timer; with the
 * argument ms=N, setitimer(ITIMER_REAL) of N ms, alarm's own timer, so
 * that an --icount boot need not compute for 3 s of guest time), and
 * waits once on the condition (no predicate loop: a lost signal is a
 * hang). The
 * handler (in main, inside the join) signals the condition, with the
 * mutex held, or without it with the argument `unlocked`, as the
 * suite's tests do. On det the first arming's turn for the timer
 * thread went to the computing thread: the alarm came when it ended,
 * before the waiter waited, and det called it a deadlock.
 * @result {"name": "condalarm", "checks": N, "failures": F,
 * "handled": H, "woke": W, "early": E, "in_main": M}; early: the
 * waiter woke while the spinner still computed (as on Linux; with one
 * VP a package without time slices runs it only after).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define CHECK_NAME "condalarm"
#include <check.h>
#include <sigcatch.h>

#define SPIN 3                  /* the spinner computes SPIN alarm times */

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static volatile int flag, woke, early, spun, handled, in_main, unlocked;
static pthread_t main_th;
static long alarm_ms;            /* ms=N; 0: alarm(1) */

static void on_alrm(int s)
{
	(void)s;
	in_main = pthread_equal(pthread_self(), main_th);
	if (!unlocked)
		pthread_mutex_lock(&m);
	flag = 1;
	pthread_cond_signal(&c);
	if (!unlocked)
		pthread_mutex_unlock(&m);
	handled++;
}

static void *waiter(void *a)
{
	pthread_mutex_lock(&m);
	if (alarm_ms) {
		struct itimerval it = { { 0, 0 }, { alarm_ms / 1000, alarm_ms % 1000 * 1000 } };
		setitimer(ITIMER_REAL, &it, 0);
	} else {
		alarm(1);
	}
	pthread_cond_wait(&c, &m);
	woke = flag;
	early = !spun;
	pthread_mutex_unlock(&m);
	return a;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *spinner(void *a)
{
	double end = now() + SPIN * (alarm_ms ? alarm_ms / 1e3 : 1);
	while (now() < end)
		;
	spun = 1;
	return a;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "unlocked"))
			unlocked = 1;
		else if (!strncmp(argv[i], "ms=", 3))
			alarm_ms = atol(argv[i] + 3);
	}
	main_th = pthread_self();
	CHECK(sig_catch(SIGALRM, on_alrm, 0) == 0);
	pthread_t w, s;
	CHECK(pthread_create(&w, 0, waiter, 0) == 0);
	CHECK(pthread_create(&s, 0, spinner, 0) == 0);
	CHECK(pthread_join(w, 0) == 0);
	CHECK(pthread_join(s, 0) == 0);
	CHECK(handled == 1);
	CHECK(woke == 1);
	printf("@result {\"name\": \"condalarm\", \"checks\": %d, \"failures\": %d, "
	       "\"handled\": %d, \"woke\": %d, \"early\": %d, \"in_main\": %d}\n",
	       checks, failures, handled, woke, early, in_main);
	return failures != 0;
}
