/*
 * fencesig: a signal handler that synchronizes (sem_post), run in a
 * thread that synchronizes all the time (harness/tests/test_fencesig.py).
 * A sender thread, SIGUSR1 blocked, sends SIGUSR1 to its own process
 * ROUNDS times, each after the last one's handler posted `ack`; the one
 * thread that takes SIGUSR1 makes a thread that yields and joins it, over
 * and over, until the sender says stop. Under det=par the handler's sem_post is
 * a fence of its own: run while the thread waited inside det's hand-off
 * (its previous fence's end, waiting for the next parallel phase), it
 * began a second turn inside the first, and the token was lost: every
 * thread waited for it for good (the public suite's pthread_join 6-3 and
 * pthread_cond_timedwait 4-3 hung so at -smp 2). Arguments: ROUNDS
 * (default 1000). Prints `@result {"name":"fencesig","checks":N,
 * "failures":F,"rounds":R}`.
 */
#define CHECK_NAME "fencesig"
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <unistd.h>
#include <check.h>

static sem_t ack;
static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static int stop;
static long loops;
static sigset_t usr1;
static int rounds = 1000;

static void on_usr1(int sig)
{
	(void)sig;
	sem_post(&ack);
}

static void *child(void *arg)
{
	(void)arg;
	sched_yield();
	return NULL;
}

static void *taker(void *arg)
{
	(void)arg;
	CHECK(pthread_sigmask(SIG_UNBLOCK, &usr1, NULL) == 0);
	for (int done = 0; !done; loops++) {
		pthread_t c;
		int r = pthread_create(&c, NULL, child, NULL);
		if (r == 0)
			r = pthread_join(c, NULL);
		if (r)
			CHECK(r == 0);
		pthread_mutex_lock(&mx);
		done = stop;
		pthread_mutex_unlock(&mx);
	}
	return NULL;
}

static void *sender(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		while (sem_wait(&ack) != 0)
			CHECK(errno == EINTR);
		CHECK(kill(getpid(), SIGUSR1) == 0);
	}
	while (sem_wait(&ack) != 0)     /* the last handler ran */
		CHECK(errno == EINTR);
	pthread_mutex_lock(&mx);
	stop = 1;
	pthread_mutex_unlock(&mx);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &usr1, NULL) == 0);   /* (the threads inherit it) */
	CHECK(sem_init(&ack, 0, 1) == 0);
	pthread_t a, b;
	CHECK(pthread_create(&a, NULL, taker, NULL) == 0);
	CHECK(pthread_create(&b, NULL, sender, NULL) == 0);
	CHECK(pthread_join(b, NULL) == 0);
	CHECK(pthread_join(a, NULL) == 0);
	CHECK(loops > 0);
	printf("@result {\"name\":\"fencesig\",\"checks\":%d,\"failures\":%d,\"rounds\":%d}\n",
	       checks, failures, rounds);
	return failures != 0;
}
