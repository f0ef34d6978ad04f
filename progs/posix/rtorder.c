/*
 * rtorder: every SCHED_FIFO priority is its own level, as on Linux.
 * Run with one VP; each part counts events, never time.
 *
 *   ready    main (FIFO 99) creates threads at 5, 10, 98, 7, 99, 9, which
 *            wait to run, then drops itself to 1: they must run 99, 98,
 *            10, 9, 7, 5, then main.
 *   wake     waiters at 7, 99, 10, 98, 9 block on a condition; a thread
 *            at 5 broadcasts it and computes: every waiter must run
 *            before its next step, highest first.
 *   signal   a waiter at 10 blocks on a condition; a thread at 5 signals
 *            it and computes: the waiter must have run when the signal
 *            returns.
 *
 * With the word "strict" (a package that orders by priority: prio) the
 * orders are checked; without it, only that every thread ran and that
 * its priority reads back (the other packages keep priorities 1..99).
 * @result {"name": "rtorder", "checks", "failures", "ready", "wake",
 * "signal": what each part logged, e.g. "99 98 10 9 7 5 1"}.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#define CHECK_NAME "rtorder"
#include <check.h>
#include <rtstart.h>

static int strict;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lm = PTHREAD_MUTEX_INITIALIZER;   /* the logs */
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int waiting, go;
static char log_[3][64];
static int part;

/* Append the caller's priority (or a tag) to the part's log. */
static void note(int v)
{
	pthread_mutex_lock(&lm);
	char *s = log_[part];
	size_t n = strlen(s);
	snprintf(s + n, sizeof log_[0] - n, n ? " %d" : "%d", v);
	pthread_mutex_unlock(&lm);
}

static int my_prio(void)
{
	struct sched_param p;
	int pol;
	CHECK(pthread_getschedparam(pthread_self(), &pol, &p) == 0 && pol == SCHED_FIFO);
	return p.sched_priority;
}

static void set_self(int prio)
{
	struct sched_param p = { prio };
	CHECK(pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0);
}

/* Start fn at prio; its priority reads back from the creator too. */
static pthread_t start(void *(*fn)(void *), int prio)
{
	pthread_t t;
	struct sched_param p;
	int pol;
	CHECK(rt_start(&t, fn, prio) == 0);
	CHECK(pthread_getschedparam(t, &pol, &p) == 0 && pol == SCHED_FIFO &&
	      p.sched_priority == prio);
	return t;
}

static void *logger(void *arg)
{
	CHECK(my_prio() == (int)(long)arg);
	note((int)(long)arg);
	return 0;
}

static void ready(void)
{
	static const int pr[] = { 5, 10, 98, 7, 99, 9 };
	pthread_t t[6];
	part = 0;
	set_self(99);
	for (int i = 0; i < 6; i++)
		t[i] = start(logger, pr[i]);
	set_self(1);                     /* all of them outrank main now */
	note(1);
	for (int i = 0; i < 6; i++)
		CHECK(pthread_join(t[i], 0) == 0);
	if (strict)
		CHECK(!strcmp(log_[0], "99 98 10 9 7 5 1"));
	else
		CHECK(strlen(log_[0]) == strlen("99 98 10 9 7 5 1"));
}

/* A condition waiter: counted in, then logged once woken. */
static void *waiter(void *arg)
{
	pthread_mutex_lock(&mu);
	waiting++;
	while (!go)
		pthread_cond_wait(&cv, &mu);
	note((int)(long)arg);
	pthread_mutex_unlock(&mu);
	return 0;
}

static volatile unsigned long sink;

/* The low thread: wake the waiters while it computes; log its own
   priority at each step after the wake (only the first counts). */
static void *waker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	int n = waiting;
	go = 1;
	pthread_mutex_unlock(&mu);
	if (part == 1)
		pthread_cond_broadcast(&cv);
	else
		pthread_cond_signal(&cv);
	note(5);                         /* the next step */
	for (unsigned long i = 0; i < 20000000; i++)
		sink += i;                   /* computing: never blocks or yields */
	note(5);
	return (void *)(long)n;
}

static void wake(int which, const int *pr, int n, const char *want)
{
	pthread_t t[8], w;
	part = which;
	waiting = go = 0;
	set_self(99);
	for (int i = 0; i < n; i++)
		t[i] = start(waiter, pr[i]);
	w = start(waker, 5);
	set_self(1);                     /* the waiters block, then the waker runs */
	void *seen;
	CHECK(pthread_join(w, &seen) == 0);
	for (int i = 0; i < n; i++)
		CHECK(pthread_join(t[i], 0) == 0);
	if (strict) {
		CHECK((long)seen == n);      /* all were waiting before the wake */
		CHECK(!strcmp(log_[which], want));
	}
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		strict |= !strcmp(argv[i], "strict");
	ready();
	static const int wpr[] = { 7, 99, 10, 98, 9 };
	wake(1, wpr, 5, "99 98 10 9 7 5 5");
	static const int spr[] = { 10 };
	wake(2, spr, 1, "10 5 5");
	printf("@result {\"name\": \"rtorder\", \"checks\": %d, \"failures\": %d, "
	       "\"ready\": \"%s\", \"wake\": \"%s\", \"signal\": \"%s\"}\n",
	       checks, failures, log_[0], log_[1], log_[2]);
	return failures ? 1 : 0;
}
