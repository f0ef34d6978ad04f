/*
 * sleepkill: a pthread_kill that reaches a thread as its sleep's time
 * runs out (woken by the time, not yet run again) has the handler run
 * before that sleep returns, as on Linux, whose return to user mode
 * runs it. Before, the sleep returned without it and the handler ran
 * at the thread's next sleep, which it cut short (EINTR): the Open
 * POSIX suite's pthread_kill 1-1 (two threads polling with sleep(1),
 * their wake-ups together) failed on tutor-1 every time.
 *
 * Each round: the worker polls a flag with usleep(POLL_US); main polls
 * the worker's "ready" the same way, then pthread_kill(worker,
 * SIGUSR1), then sets the flag. The worker notes whether its handler
 * had run when it saw the flag (late: it had not), then sleeps once
 * more (cut: that sleep ended early, EINTR).
 * @result {"name": "sleepkill", "rounds": R, "late": L, "cut": C,
 * "handled": H}   (handled: rounds whose handler ran at all)
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define ROUNDS 8
#define POLL_US 20000

static volatile int handled, ready, go;
static int late, cut, ran;

static void on_usr1(int s)
{
	(void)s;
	handled = 1;
}

static void *worker(void *a)
{
	(void)a;
	ready = 1;
	while (!go)
		usleep(POLL_US);
	if (!handled)
		late++;
	if (usleep(POLL_US) != 0 && errno == EINTR)
		cut++;
	ran += handled;
	return 0;
}

int main(void)
{
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, 0))
		return 2;
	for (int k = 0; k < ROUNDS; k++) {
		pthread_t w;
		handled = ready = go = 0;
		if (pthread_create(&w, 0, worker, 0))
			return 2;
		while (!ready)
			usleep(POLL_US);
		pthread_kill(w, SIGUSR1);
		go = 1;
		pthread_join(w, 0);
	}
	printf("@result {\"name\": \"sleepkill\", \"rounds\": %d, \"late\": %d, "
	       "\"cut\": %d, \"handled\": %d}\n", ROUNDS, late, cut, ran);
	return 0;
}
