/*
 * createsig: threads made with varied attributes (default, detached, a
 * 16 KiB stack, a 16 KiB stack with no guard, a stack of its own from
 * malloc, joined before it is given again) while two other threads
 * keep signalling the process (harness/tests/test_createsig.py). Each
 * sender waits until its last signal's handler posted its semaphore,
 * then sends again, SIGNALS times in all; the one thread that takes the
 * signals makes and joins children (detached ones it only counts) until
 * both senders are done. A child fills a buffer on its own stack,
 * yields (a fence on det=par, where it may resume on another VP), and
 * checks it: a stack in memory that one VP's view kept private reads
 * back stale. Under det=par a handler's sem_post, run between the
 * create's turn and the package's records of the child, ended that turn
 * early, and the child's records and stack came from the creator's
 * private heap: every VP waited for the token for good, or a register
 * changed under the creator (the public suite's pthread_join 6-3).
 * Arguments: SIGNALS per sender (default 500). Prints `@result
 * {"name":"createsig","checks":N,"failures":F,"made":M,"signals":S}`.
 */
#define CHECK_NAME "createsig"
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <unistd.h>
#include <check.h>

#define KINDS 5
#define SMALL (16 * 1024)

static sem_t ack1, ack2;
static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static int senders_left = 2;
static long made, sent;
static sigset_t both;
static int per_sender = 500;
static pthread_attr_t kinds[KINDS];

static void on_usr1(int sig)
{
	(void)sig;
	sem_post(&ack1);
}

static void on_usr2(int sig)
{
	(void)sig;
	sem_post(&ack2);
}

static void *child(void *arg)
{
	volatile unsigned char buf[512];
	unsigned char seed = (unsigned char)(uintptr_t)arg;
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(seed + i);
	sched_yield();
	for (size_t i = 0; i < sizeof buf; i++)
		if (buf[i] != (unsigned char)(seed + i))
			return NULL;
	return (void *)1;
}

static void *taker(void *arg)
{
	(void)arg;
	CHECK(pthread_sigmask(SIG_UNBLOCK, &both, NULL) == 0);
	for (int k = 0, done = 0; !done; k = (k + 1) % KINDS) {
		pthread_t c;
		int det, r = pthread_create(&c, &kinds[k], child, (void *)(uintptr_t)made);
		if (r) {
			CHECK(r == 0);
			break;
		}
		made++;
		pthread_attr_getdetachstate(&kinds[k], &det);
		if (det != PTHREAD_CREATE_DETACHED) {
			void *ok = NULL;
			CHECK(pthread_join(c, &ok) == 0);
			CHECK(ok == (void *)1);
		}
		pthread_mutex_lock(&mx);
		done = senders_left == 0;
		pthread_mutex_unlock(&mx);
	}
	return NULL;
}

struct sender { int sig; sem_t *ack; };

static void *sender(void *arg)
{
	struct sender *s = arg;
	for (int i = 0; i <= per_sender; i++) {
		while (sem_wait(s->ack) != 0)
			CHECK(errno == EINTR);
		if (i == per_sender)
			break;               /* (the last handler ran) */
		CHECK(kill(getpid(), s->sig) == 0);
		pthread_mutex_lock(&mx);
		sent++;
		pthread_mutex_unlock(&mx);
	}
	pthread_mutex_lock(&mx);
	senders_left--;
	pthread_mutex_unlock(&mx);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		per_sender = atoi(argv[1]);
	for (int k = 0; k < KINDS; k++)
		CHECK(pthread_attr_init(&kinds[k]) == 0);
	CHECK(pthread_attr_setdetachstate(&kinds[1], PTHREAD_CREATE_DETACHED) == 0);
	CHECK(pthread_attr_setstacksize(&kinds[2], SMALL) == 0);
	CHECK(pthread_attr_setstacksize(&kinds[3], SMALL) == 0);
	CHECK(pthread_attr_setguardsize(&kinds[3], 0) == 0);
	void *given = malloc(4 * SMALL);   /* (det=par runs its thread on one of its own: posix.md) */
	CHECK(given && pthread_attr_setstack(&kinds[4], given, 4 * SMALL) == 0);
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	sa.sa_handler = on_usr2;
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGUSR2);
	CHECK(pthread_sigmask(SIG_BLOCK, &both, NULL) == 0);   /* (the threads inherit it) */
	CHECK(sem_init(&ack1, 0, 1) == 0 && sem_init(&ack2, 0, 1) == 0);
	struct sender s1 = { SIGUSR1, &ack1 }, s2 = { SIGUSR2, &ack2 };
	pthread_t t, a, b;
	CHECK(pthread_create(&t, NULL, taker, NULL) == 0);
	CHECK(pthread_create(&a, NULL, sender, &s1) == 0);
	CHECK(pthread_create(&b, NULL, sender, &s2) == 0);
	CHECK(pthread_join(a, NULL) == 0);
	CHECK(pthread_join(b, NULL) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(made > 0 && sent == 2L * per_sender);
	printf("@result {\"name\":\"createsig\",\"checks\":%d,\"failures\":%d,\"made\":%ld,"
	       "\"signals\":%ld}\n", checks, failures, made, sent);
	return failures != 0;
}
