/*
 * sigzero: signal 0, the null signal, is a check that the target exists
 * and sends nothing, for every call that takes a target: raise(0),
 * kill(getpid(), 0), pthread_kill(pthread_self(), 0) and
 * sigqueue(getpid(), 0, v) return 0 (glibc's and musl's raise(0) too,
 * which send tgkill's null signal), and no handler runs. Before, raise(0)
 * returned -1 with EINVAL. Numbers past the last signal stay EINVAL.
 *
 * @result {"name": "sigzero", "checks": N, "failures": F}
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define CHECK_NAME "sigzero"
#include <check.h>

static volatile int handled;

static void count(int sig)
{
	(void)sig;
	handled++;
}

int main(void)
{
	union sigval v = { .sival_int = 1 };
	signal(SIGUSR1, count);

	CHECK(raise(0) == 0);
	CHECK(kill(getpid(), 0) == 0);
	CHECK(pthread_kill(pthread_self(), 0) == 0);
	CHECK(sigqueue(getpid(), 0, v) == 0);
	CHECK(handled == 0);

	errno = 0;
	CHECK(raise(-1) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(raise(NSIG) == -1 && errno == EINVAL);
	CHECK(raise(SIGUSR1) == 0 && handled == 1);

	printf("@result {\"name\": \"sigzero\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
