/*
 * killcancel: a signal sent to a thread blocked in a wait, then a cancel
 * of it, runs its handler before the cancel acts (before the thread's
 * cleanup handlers), as on Linux: pthread_kill returned before
 * pthread_cancel was called, so the signal was pending, unblocked, when
 * the wait ended, and a wait's end runs what is pending whatever it
 * returns. (Linux: both are signals, SIGUSR1 below the cancel's, and
 * both are taken on the waiter's return to user mode, lowest first.)
 * Before the fix a wait that gave up (ECANCELED here; ETIMEDOUT and EINTR
 * alike) left a handler posted since its last look for some later
 * upcall or yield: the cleanup handler found it not run.
 * Each round: a waiter blocks in sem_timedwait (far deadline) or
 * pthread_cond_timedwait; main sends SIGUSR1, then cancels it at once,
 * and joins. A third kind (post) ends the sem_timedwait with a sem_post
 * instead: it returns 0, and the handler must have run by then (the
 * granted exit, pw_done, did so before the fix too).
 * argv[1]: rounds per kind.
 */
#define CHECK_NAME "killcancel"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <pthread.h>
#include <semaphore.h>
#include <sched.h>
#include <animalib/result.h>
#include <check.h>
#include <sigcatch.h>

static volatile int ready, hit, seen;
static sem_t sem;
static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void on_sig(int s)
{
	(void)s;
	hit = 1;
}

/* What the handler had done when the cancel acted. */
static void cleanup(void *m)
{
	seen = hit;
	if (m)
		pthread_mutex_unlock(m);
}

static void *waiter(void *a)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 60;                 /* never reached: the cancel ends it */
	if (a == (void *)2) {
		ready = 1;
		while (sem_timedwait(&sem, &dl) != 0)
			;
		seen = hit;
		return PTHREAD_CANCELED;     /* (as the others, for the check) */
	}
	if (a) {
		pthread_mutex_lock(&mx);
		pthread_cleanup_push(cleanup, &mx);
		ready = 1;
		while (1)
			pthread_cond_timedwait(&cv, &mx, &dl);
		pthread_cleanup_pop(0);
	} else {
		pthread_cleanup_push(cleanup, 0);
		ready = 1;
		while (1)
			sem_timedwait(&sem, &dl);
		pthread_cleanup_pop(0);
	}
	return 0;
}

/* One round; 1 if the cancel acted (or the post's wait returned) before
   the handler ran. */
static int round_(int cond, int i)
{
	pthread_t t;
	void *r = 0;
	ready = hit = 0;
	seen = -1;
	CHECK(pthread_create(&t, 0, waiter, (void *)(long)cond) == 0);
	while (!ready)
		sched_yield();
	if (i % 3 == 1)                  /* let it block (or not: the other rounds) */
		for (int k = 0; k < 4; k++)
			sched_yield();
	else if (i % 3 == 2)
		nanosleep(&(struct timespec){0, 1000000}, 0);
	CHECK(pthread_kill(t, SIGUSR1) == 0);
	if (cond == 2)
		CHECK(sem_post(&sem) == 0);
	else
		CHECK(pthread_cancel(t) == 0);
	CHECK(pthread_join(t, &r) == 0);
	CHECK(r == PTHREAD_CANCELED);
	CHECK(seen >= 0);
	return seen == 0;
}

int main(int argc, char **argv)
{
	struct result R;
	result_begin(&R, "killcancel");
	int n = argc > 1 ? atoi(argv[1]) : 100;
	CHECK(sig_catch(SIGUSR1, on_sig, SA_RESTART) == 0);   /* (a wait it interrupts goes on) */
	CHECK(sem_init(&sem, 0, 0) == 0);
	long total = 0;
	static const char *names[] = {"sem", "cond", "post"};
	for (int k = 0; k < 3; k++) {
		long miss = 0;
		for (int i = 0; i < n; i++)
			miss += round_(k, i);
		result_int(&R, names[k], miss);
		total += miss;
	}
	result_int(&R, "rounds", n);
	result_int(&R, "misses", total);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures;
}
