/*
 * sigexit: a signal for the program (kill of its own pid) that the
 * library hands to a thread that does not block it is taken even when
 * that thread ends before it ran anything: Linux keeps such a signal
 * pending for the process, so it is never lost with a thread. Before, a
 * signal posted to a thread as it exited was dropped with its slot
 * (ulib/libc/signal.c, __sig_thread_exit): LTP's pthread_create 14-1,
 * whose worker's children inherit its unblocked mask, hung in 3 runs of
 * 5 on fifo with 2 VPs, its sender waiting for a handler that never ran.
 * Now the exiting thread runs what is pending first, and a later post
 * goes to the program.
 *
 * Rounds: main, with SIGUSR1 unblocked, creates a thread (it inherits
 * that mask) that returns at once, blocks SIGUSR1 itself, sends SIGUSR1
 * to the program, joins the thread, then unblocks SIGUSR1 for a moment
 * (a signal still pending for the program runs then, in main). Each
 * round's signal must run exactly once, in the thread or in main.
 * @result {"name": "sigexit", "checks": N, "failures": F, "rounds": R,
 * "in_thread": T}.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define CHECK_NAME "sigexit"
#include <check.h>
#include <sigcatch.h>

#define ROUNDS 500

static int ran, ran_away;
static pthread_t main_th;

static void on_usr1(int s)
{
	(void)s;
	__atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
	if (!pthread_equal(pthread_self(), main_th))
		__atomic_fetch_add(&ran_away, 1, __ATOMIC_RELAXED);
}

static void *quick(void *arg)
{
	return arg;
}

int main(void)
{
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	CHECK(sig_catch(SIGUSR1, on_usr1, 0) == 0);
	main_th = pthread_self();

	int exact = 0, r;
	for (r = 0; r < ROUNDS; r++) {
		pthread_t t;
		if (pthread_create(&t, 0, quick, 0))
			break;
		pthread_sigmask(SIG_BLOCK, &usr1, 0);
		kill(getpid(), SIGUSR1);
		pthread_join(t, 0);
		pthread_sigmask(SIG_UNBLOCK, &usr1, 0);
		exact += __atomic_load_n(&ran, __ATOMIC_RELAXED) == r + 1;
	}
	CHECK(r == ROUNDS);
	CHECK(exact == ROUNDS);
	CHECK(ran == ROUNDS);
	printf("@result {\"name\": \"sigexit\", \"checks\": %d, \"failures\": %d, \"rounds\": %d, "
	       "\"in_thread\": %d, \"ran\": %d}\n", checks, failures, r, ran_away, ran);
	return failures != 0;
}
