/*
 * detloop: a worker loops on calls that neither block nor yield while
 * main sleeps, then main stops it through a flag. On det (a token that
 * moves only at the program's synchronization) the worker kept the
 * token for good and main's sleep never ended: a hang, as in the Open
 * POSIX suite's pthread_kill 8-1 and pthread_sigmask 18-1. Now each of
 * these calls is a turn (thread_ops.turn; sem_post's fence): a tick of
 * det's logical time, the token moving on when the sleep is due.
 *
 * The worker's loop is only the call and an atomic read of the flag (a
 * loop on the flag alone is det's documented limit, not tested here).
 * One round per kind, main sleeping SLEEP_MS in each:
 *   post   sem_post
 *   tkill  pthread_kill(self, SIGUSR1), a handler counting
 *   tkill0 pthread_kill(self, 0)
 *   raise  raise(SIGUSR1)
 *   kill   kill(getpid(), SIGUSR1) (main blocks it: the worker takes it)
 *   mask   pthread_sigmask blocking and unblocking SIGUSR2
 * Arguments: the kinds to run (default all).
 * @result {"name": "detloop", "checks": N, "failures": F, "rounds": R,
 * "loops": "KIND:COUNT,..."}: on det the counts are the same every run
 * (the sleep times out in token moves).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHECK_NAME "detloop"
#include <check.h>

#define SLEEP_MS 100

enum { POST, TKILL, TKILL0, RAISE, KILL, MASK, NKIND };
static const char *names[NKIND] = { "post", "tkill", "tkill0", "raise", "kill", "mask" };

static int stop;                         /* main's word to the worker (atomic) */
static volatile long handled;
static sem_t sem;

static void on_usr1(int s)
{
	(void)s;
	handled++;
}

static void *worker(void *a)
{
	int kind = (int)(long)a;
	long n = 0;
	sigset_t u2;
	sigemptyset(&u2);
	sigaddset(&u2, SIGUSR2);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int r = 0;
		switch (kind) {
		case POST:   r = sem_post(&sem); break;
		case TKILL:  r = pthread_kill(pthread_self(), SIGUSR1); break;
		case TKILL0: r = pthread_kill(pthread_self(), 0); break;
		case RAISE:  r = raise(SIGUSR1); break;
		case KILL:   r = kill(getpid(), SIGUSR1); break;
		case MASK:   r = pthread_sigmask(n & 1 ? SIG_UNBLOCK : SIG_BLOCK, &u2, 0); break;
		}
		if (r)
			return (void *)-1L;
		n++;
	}
	return (void *)n;
}

int main(int argc, char **argv)
{
	int want[NKIND], rounds = 0;
	char loops[256] = "";
	for (int k = 0; k < NKIND; k++) {
		want[k] = argc < 2;
		for (int i = 1; i < argc; i++)
			if (!strcmp(argv[i], names[k]))
				want[k] = 1;
	}
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, 0) == 0);
	CHECK(sem_init(&sem, 0, 0) == 0);
	sigset_t u1;
	sigemptyset(&u1);
	sigaddset(&u1, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &u1, 0) == 0);   /* kill's goes to the worker */
	for (int k = 0; k < NKIND; k++) {
		if (!want[k])
			continue;
		pthread_t w;
		void *n = 0;
		long h0 = handled;
		__atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
		CHECK(sem_init(&sem, 0, 0) == 0);
		sigset_t none;
		sigemptyset(&none);
		CHECK(pthread_sigmask(SIG_SETMASK, &none, 0) == 0);   /* the worker inherits it */
		CHECK(pthread_create(&w, 0, worker, (void *)(long)k) == 0);
		CHECK(pthread_sigmask(SIG_BLOCK, &u1, 0) == 0);
		usleep(SLEEP_MS * 1000);
		__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
		CHECK(pthread_join(w, &n) == 0);
		CHECK((long)n > 0);
		if (k == KILL)
			CHECK(handled - h0 > 0);          /* (pending ones merge, as on Linux) */
		if (k == TKILL || k == RAISE)
			CHECK(handled - h0 == (long)n);   /* a thread's own: at once, every one */
		int v = -1;
		if (k == POST)
			CHECK(sem_getvalue(&sem, &v) == 0 && v == (long)n);
		snprintf(loops + strlen(loops), sizeof loops - strlen(loops), "%s%s:%ld",
			 rounds ? "," : "", names[k], (long)n);
		rounds++;
	}
	printf("@result {\"name\": \"detloop\", \"checks\": %d, \"failures\": %d, "
	       "\"rounds\": %d, \"loops\": \"%s\"}\n", checks, failures, rounds, loops);
	return failures != 0;
}
