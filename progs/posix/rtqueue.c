/*
 * rtqueue: a real-time signal sent to a thread that blocks it queues, one
 * instance per send, up to the queue's bound (_SC_SIGQUEUE_MAX); past it
 * pthread_kill returns EAGAIN and raise -1 with EAGAIN (Linux's tgkill
 * rule), so no instance that a call reported sent is lost. A worker
 * blocks SIGRTMIN+3 and waits; main sends it MANY (more than the old
 * bound of 64) with pthread_kill, then as many more as fit; the worker
 * unblocks and every send that returned 0 must run the handler once.
 * Then the caller's own: raise of a blocked real-time signal until
 * EAGAIN, every queued one run at the unblock; kill's instance past the
 * bound is only the pending bit (0, as Linux's SI_USER): one more run.
 */
#define CHECK_NAME "rtqueue"
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <animalib/result.h>
#include <check.h>

#define MANY 200
#define SIG (SIGRTMIN + 3)

static volatile int ran;
static sem_t go, blocked, done;

static void on_sig(int s)
{
	(void)s;
	ran++;
}

static void mask(int how)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIG);
	CHECK(pthread_sigmask(how, &set, 0) == 0);
}

static void *worker(void *a)
{
	(void)a;
	mask(SIG_BLOCK);
	sem_post(&blocked);
	while (sem_wait(&go) != 0)
		;                        /* (a post wakes it: the wait goes on) */
	mask(SIG_UNBLOCK);               /* every queued instance runs here */
	sem_post(&done);
	return 0;
}

int main(void)
{
	long max = sysconf(_SC_SIGQUEUE_MAX);
	CHECK(max > MANY);
	CHECK(signal(SIG, on_sig) != SIG_ERR);
	sem_init(&go, 0, 0);
	sem_init(&blocked, 0, 0);
	sem_init(&done, 0, 0);
	mask(SIG_BLOCK);                 /* (so only the worker takes them) */
	pthread_t w;
	CHECK(pthread_create(&w, 0, worker, 0) == 0);
	while (sem_wait(&blocked) != 0)
		;
	int sent = 0, r = 0;
	for (int i = 0; i < MANY; i++)
		if ((r = pthread_kill(w, SIG)) == 0)
			sent++;
	CHECK(sent == MANY);
	while (sent < 2 * max && (r = pthread_kill(w, SIG)) == 0)
		sent++;
	CHECK(r == EAGAIN && sent == max);
	sem_post(&go);
	while (sem_wait(&done) != 0)
		;
	CHECK(pthread_join(w, 0) == 0);
	int thread_ran = ran;
	CHECK(thread_ran == sent);

	/* the caller's own: raise queues until EAGAIN; kill past it is 0 */
	ran = 0;
	int raised = 0;
	errno = 0;
	while (raised < 2 * max && raise(SIG) == 0)
		raised++;
	CHECK(errno == EAGAIN && raised == max);
	CHECK(kill(getpid(), SIG) == 0);
	mask(SIG_UNBLOCK);
	CHECK(ran == raised + 1);        /* kill's: the bit, one more run */

	struct result res;
	result_begin(&res, "rtqueue");
	result_int(&res, "max", max);
	result_int(&res, "sent", sent);
	result_int(&res, "thread_ran", thread_ran);
	result_int(&res, "raised", raised);
	result_int(&res, "raise_ran", ran);
	result_int(&res, "checks", checks);
	result_int(&res, "failures", failures);
	result_end(&res);
	return failures != 0;
}
