/*
 * sigign: a signal whose action is SIG_IGN but which the thread (or
 * every thread) blocks stays pending, as on Linux, where a blocked
 * signal is never ignored when it is sent (the handler may change
 * before it is unblocked): sigpending shows it and sigwait takes it, for
 * raise, kill of the program's own pid, pthread_kill, sigqueue, another
 * process's kill, and a thread blocked in sigwait. Unblocked, it is
 * discarded then; SIG_IGN set while it is pending discards it too.
 * Before, each of them was discarded at its sending and the sigwait for
 * it never returned.
 *
 * @result {"name": "sigign", "checks": N, "failures": F}
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK_NAME "sigign"
#include <check.h>

static sigset_t usr1;

/* sig pending now, then taken by a sigtimedwait of at most a second */
static int pending_then_taken(void)
{
	sigset_t p;
	sigpending(&p);
	struct timespec lim = { 1, 0 };
	return sigismember(&p, SIGUSR1) == 1 && sigtimedwait(&usr1, 0, &lim) == SIGUSR1;
}

static void *waiter(void *arg)
{
	int sig = 0;
	sigwait(&usr1, &sig);
	*(int *)arg = sig;
	return 0;
}

int main(void)
{
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, 0);
	signal(SIGUSR1, SIG_IGN);

	raise(SIGUSR1);
	CHECK(pending_then_taken());
	kill(getpid(), SIGUSR1);
	CHECK(pending_then_taken());
	pthread_kill(pthread_self(), SIGUSR1);
	CHECK(pending_then_taken());
	CHECK(sigqueue(getpid(), SIGUSR1, (union sigval){ 0 }) == 0);
	CHECK(pending_then_taken());

	pid_t me = getpid(), c = fork();
	if (c == 0) {
		kill(me, SIGUSR1);
		_exit(0);
	}
	waitpid(c, 0, 0);
	struct timespec lim = { 2, 0 };
	CHECK(sigtimedwait(&usr1, 0, &lim) == SIGUSR1);

	/* a thread that waits for it (it inherits the mask) */
	int got = 0;
	pthread_t t;
	pthread_create(&t, 0, waiter, &got);
	struct timespec ms100 = { 0, 100000000 };
	nanosleep(&ms100, 0);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, 0);
	CHECK(got == SIGUSR1);

	/* unblocked, a pending one is discarded; SIG_IGN set discards too */
	sigset_t p;
	raise(SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &usr1, 0);
	sigpending(&p);
	CHECK(!sigismember(&p, SIGUSR1));
	pthread_sigmask(SIG_BLOCK, &usr1, 0);
	signal(SIGUSR1, SIG_DFL);
	raise(SIGUSR1);
	signal(SIGUSR1, SIG_IGN);
	sigpending(&p);
	CHECK(!sigismember(&p, SIGUSR1));

	printf("@result {\"name\": \"sigign\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
