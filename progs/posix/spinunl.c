/*
 * spinunl: a pthread_spin_unlock by a thread that does not hold the
 * lock (undefined in POSIX; glibc just stores 0 and returns 0, and the
 * Open POSIX suite's pthread_spin_unlock 3-1 does it) must not leave
 * the caller marked as holding a spin lock. The unlock took one off the
 * caller's count of spin locks held (struct thread's crit), which went
 * to -1: the thread then counted as in a spin lock for good, so a signal
 * sent to it while it computed waited for a last unlock that never came.
 *
 * Rounds (each then has a second thread pthread_kill main while main
 * computes until its handler has run; main is switched out by time
 * slices, so the second thread runs even on one VP: argument `yield`
 * has main yield now and then instead, for det, which has no slices):
 *   double  main: lock; unlock; unlock (the lock already free)
 *   other   a thread locks; main unlocks; the thread unlocks again
 * A round whose handler has not run LIMIT slices after the kill (or
 * WAIT slices in all) fails (before:
 * both rounds on every package but kthread: main, counted as in a spin
 * lock, was never switched out, nor interrupted for the handler).
 * @result {"name": "spinunl", "checks": N, "failures": F, "rounds": R}
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <sched.h>
#include <string.h>

#define CHECK_NAME "spinunl"
#include <check.h>

#define LIMIT 4000L          /* slices of 100,000 adds after the kill: far past it */
#define WAIT 20000L          /* before it (the kicker may wait for a CPU) */

static pthread_spinlock_t sl;
static pthread_t mainth;
static volatile int got, started, sent;
static int yields;                       /* argument `yield` */
static sem_t held, freed;

static void on_usr1(int s)
{
	(void)s;
	got = 1;
}

static void *kicker(void *a)
{
	(void)a;
	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		sched_yield();
	CHECK(pthread_kill(mainth, SIGUSR1) == 0);
	__atomic_store_n(&sent, 1, __ATOMIC_RELEASE);
	return 0;
}

static void *holder(void *a)
{
	(void)a;
	CHECK(pthread_spin_lock(&sl) == 0);
	sem_post(&held);
	sem_wait(&freed);
	CHECK(pthread_spin_unlock(&sl) == 0);     /* the suite's cleanup */
	return 0;
}

/* Compute until the handler has run; 1 if it did. */
static int computes_until_signalled(void)
{
	pthread_t k;
	volatile unsigned long sink = 0;
	got = sent = 0;
	CHECK(pthread_create(&k, 0, kicker, 0) == 0);
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	long i, after = 0;
	for (i = 0; !got && i < WAIT && after < LIMIT; i++) {
		if (__atomic_load_n(&sent, __ATOMIC_ACQUIRE))
			after++;
		for (int j = 0; j < 100000; j++)
			sink += j;
		if (yields && i % 16 == 15)
			sched_yield();
	}
	CHECK(pthread_join(k, 0) == 0);
	started = 0;
	return got;
}

int main(int argc, char **argv)
{
	int rounds = 0;
	yields = argc > 1 && !strcmp(argv[1], "yield");
	mainth = pthread_self();
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, 0) == 0);
	CHECK(pthread_spin_init(&sl, PTHREAD_PROCESS_PRIVATE) == 0);
	sem_init(&held, 0, 0);
	sem_init(&freed, 0, 0);

	/* double */
	CHECK(pthread_spin_lock(&sl) == 0);
	CHECK(pthread_spin_unlock(&sl) == 0);
	CHECK(pthread_spin_unlock(&sl) == 0);
	int ok = computes_until_signalled();
	CHECK(ok);
	if (!ok)
		printf("spinunl double: the handler never ran\n");
	rounds++;

	/* other */
	pthread_t h;
	CHECK(pthread_create(&h, 0, holder, 0) == 0);
	sem_wait(&held);
	CHECK(pthread_spin_unlock(&sl) == 0);
	CHECK(pthread_spin_trylock(&sl) == 0);    /* it is free now */
	CHECK(pthread_spin_unlock(&sl) == 0);
	sem_post(&freed);
	CHECK(pthread_join(h, 0) == 0);
	ok = computes_until_signalled();
	CHECK(ok);
	if (!ok)
		printf("spinunl other: the handler never ran\n");
	rounds++;

	printf("@result {\"name\": \"spinunl\", \"checks\": %d, \"failures\": %d, "
	       "\"rounds\": %d}\n", checks, failures, rounds);
	return failures != 0;
}
