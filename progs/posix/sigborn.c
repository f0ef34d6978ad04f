/*
 * sigborn: a signal for the process never runs its handler in a thread
 * that blocks it by the mask it inherited (harness/tests/test_sigborn.py).
 * Main blocks SIGUSR1 and SIGUSR2 and makes and joins threads in a loop
 * (they inherit both); one sender (blocking both too) sends SIGUSR1 to
 * the process SIGNALS times, each time waiting for its handler; one
 * taker thread lets SIGUSR1 through only now and then, for a moment (its
 * mask there: SIGUSR2 alone). The handler (SA_NODEFER: the mask it sees is the
 * interrupted one) must run in the taker with SIGUSR2 blocked. A new
 * thread may start on another VP before its creator gives it its mask:
 * with a mask of nothing meanwhile, a kill of the process ran the
 * handler there. Arguments: SIGNALS (default 300). Prints `@result
 * {"name":"sigborn","checks":N,"failures":F,"signals":S,"runs":R,
 * "wrong_thread":W,"wrong_mask":M,"made":C}`.
 */
#define CHECK_NAME "sigborn"
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
static pthread_t taker_th;
static volatile int taker_ready, sending = 1;
static long runs, wrong_thread, wrong_mask, made;

static void on_usr1(int sig)
{
	(void)sig;
	sigset_t m;
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	__atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
	if (!pthread_equal(pthread_self(), taker_th))
		__atomic_fetch_add(&wrong_thread, 1, __ATOMIC_RELAXED);
	if (!sigismember(&m, SIGUSR2))
		__atomic_fetch_add(&wrong_mask, 1, __ATOMIC_RELAXED);
	sem_post(&ack);
}

static void *taker(void *arg)
{
	(void)arg;
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, SIGUSR1);
	taker_ready = 1;
	/* SIGUSR1 gets through only here, now and then: meanwhile a kill
	   finds no thread that takes it, and it waits for the program while
	   every VP is interrupted (where a new thread may be starting). */
	while (__atomic_load_n(&sending, __ATOMIC_ACQUIRE)) {
		CHECK(pthread_sigmask(SIG_UNBLOCK, &one, NULL) == 0);
		CHECK(pthread_sigmask(SIG_BLOCK, &one, NULL) == 0);
		for (int i = 0; i < 20; i++)
			sched_yield();
	}
	return NULL;
}

static void *child(void *arg)
{
	return arg;
}

static void *sender(void *arg)
{
	long n = (long)arg;
	for (long i = 0; i < n; i++) {
		CHECK(kill(getpid(), SIGUSR1) == 0);
		while (sem_wait(&ack) != 0)
			CHECK(errno == EINTR);
	}
	__atomic_store_n(&sending, 0, __ATOMIC_RELEASE);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300;
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_NODEFER };
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	sigset_t both;
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGUSR2);
	CHECK(pthread_sigmask(SIG_BLOCK, &both, NULL) == 0);   /* (every thread inherits it) */
	CHECK(sem_init(&ack, 0, 0) == 0);
	CHECK(pthread_create(&taker_th, NULL, taker, NULL) == 0);
	while (!taker_ready)
		sched_yield();
	pthread_t s;
	CHECK(pthread_create(&s, NULL, sender, (void *)n) == 0);
	while (__atomic_load_n(&sending, __ATOMIC_ACQUIRE)) {
		pthread_t c;
		void *r = 0;
		CHECK(pthread_create(&c, NULL, child, (void *)1) == 0);
		CHECK(pthread_join(c, &r) == 0 && r == (void *)1);
		made++;
	}
	CHECK(pthread_join(s, NULL) == 0);
	CHECK(pthread_join(taker_th, NULL) == 0);
	CHECK(wrong_thread == 0 && wrong_mask == 0);
	printf("@result {\"name\":\"sigborn\",\"checks\":%d,\"failures\":%d,\"signals\":%ld,"
	       "\"runs\":%ld,\"wrong_thread\":%ld,\"wrong_mask\":%ld,\"made\":%ld}\n",
	       checks, failures, n, runs, wrong_thread, wrong_mask, made);
	return failures != 0;
}
