/*
 * rtthrot: real-time throttling lets a SCHED_OTHER thread run beside a
 * real-time thread that computes, as Linux's sched_rt_runtime_us does
 * (the Open POSIX functional condvar and schedule tests rely on it).
 * Run with one VP, under --icount (guest time).
 *
 * A waiter at SCHED_FIFO 10 waits on a condition; a spinner at
 * SCHED_FIFO 5 computes for 3 s of guest time; main (SCHED_OTHER) sets
 * alarm(1) and joins the spinner. Both threads block SIGALRM, so main
 * takes it, blocked in pthread_join; its handler signals the condition.
 * With the word "raise", as the Open POSIX tests do, the threads start
 * at SCHED_OTHER and raise themselves (pthread_setschedparam while
 * running) and nobody blocks SIGALRM (the library gives it to main).
 * With the word "strict" (a package that orders by priority: prio) the
 * waiter must wake before the spinner ends: "alarm woke spun"; without
 * it, only that all three happen.
 * The spinner stops early once the waiter has woken.
 * @result {"name": "rtthrot", "checks", "failures", "pkg", "raise", "order": the
 * events in order, "woke_ms": guest ms from start to the waiter's wake-up}.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <animart/pkg.h>

#define CHECK_NAME "rtthrot"
#include <check.h>
#include <rtstart.h>
#include <sigcatch.h>

extern const struct pkg *posix_pkg;     /* (ulib/pthread/pstart.c) */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int rang, woke;
static char order[64];
static long woke_ms;
static struct timespec t0;
static int raise_;

/* "raise": the thread raises itself to SCHED_FIFO prio. */
static void raise_self(void *arg)
{
	struct sched_param p = { (int)(long)arg };
	if (raise_)
		CHECK(pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0);
}

static long ms_since(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

/* Log an event (under mu: the handler, the waiter and main log). */
static void note(const char *what)
{
	size_t n = strlen(order);
	snprintf(order + n, sizeof order - n, n ? " %s" : "%s", what);
}

static void on_alarm(int sig)
{
	(void)sig;
	pthread_mutex_lock(&mu);
	note("alarm");
	rang = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

static void *waiter(void *arg)
{
	raise_self(arg);
	pthread_mutex_lock(&mu);
	while (!rang)
		pthread_cond_wait(&cv, &mu);
	note("woke");
	woke_ms = ms_since(&t0);
	woke = 1;
	pthread_mutex_unlock(&mu);
	return 0;
}

static void *spinner(void *arg)
{
	raise_self(arg);
	/* until the waiter woke (nothing left to show) or 3 s: without
	   throttling the waiter cannot wake while this spins (prio, one VP) */
	while (!woke && ms_since(&t0) < 3000)
		;
	pthread_mutex_lock(&mu);
	note("spun");
	pthread_mutex_unlock(&mu);
	return 0;
}

/* "raise": the thread inherits main's policy and raises itself. */
static pthread_t start(void *(*fn)(void *), int prio)
{
	pthread_t t;
	if (raise_)
		CHECK(pthread_create(&t, 0, fn, (void *)(long)prio) == 0);
	else
		CHECK(rt_start(&t, fn, prio) == 0);
	return t;
}

int main(int argc, char **argv)
{
	int strict = 0;
	for (int i = 1; i < argc; i++)
		strict |= !strcmp(argv[i], "strict"), raise_ |= !strcmp(argv[i], "raise");
	CHECK(sig_catch(SIGALRM, on_alarm, 0) == 0);
	sigset_t al, old;
	sigemptyset(&al);
	sigaddset(&al, SIGALRM);
	if (!raise_)
		pthread_sigmask(SIG_BLOCK, &al, &old);   /* the threads inherit it */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_t w = start(waiter, 10);
	pthread_t s = start(spinner, 5);
	if (!raise_)
		pthread_sigmask(SIG_SETMASK, &old, 0);   /* main alone takes SIGALRM */
	alarm(1);
	CHECK(pthread_join(s, 0) == 0);
	CHECK(pthread_join(w, 0) == 0);
	CHECK(rang);
	CHECK(strstr(order, "alarm") && strstr(order, "woke") && strstr(order, "spun"));
	if (strict)
		CHECK(!strcmp(order, "alarm woke spun"));
	printf("@result {\"name\": \"rtthrot\", \"checks\": %d, \"failures\": %d, \"pkg\": \"%s\", "
	       "\"raise\": %d, \"order\": \"%s\", \"woke_ms\": %ld}\n", checks, failures,
	       posix_pkg->name, raise_, order, woke_ms);
	return failures != 0;
}
