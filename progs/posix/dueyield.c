/*
 * dueyield: a POSIX timer fires while main computes and a worker only
 * yields. Each of `rounds` rounds (ROUNDS) arms a 30 ms CLOCK_MONOTONIC
 * timer (SIGEV_SIGNAL) and has main compute in chunks, each followed by
 * a sched_yield (yield=0: none), until its handler ran, while the worker
 * yields in a loop; the timer's thread (ulib/libc/timer.c) waits for
 * the deadline meanwhile. A round that sees no firing within LIMIT_MS of
 * the boot clock counts as missed (a count, not a hang), and the run
 * ends there, without waiting for the worker (exit ends it).
 * Arguments NAME=VALUE, any order (the package's own, pkg=..., too).
 * Prints @result {"name":"dueyield","rounds":..,"fired":..,"late_ms":..,"turns":..}
 *   fired    rounds whose timer fired (rounds on a run that passes)
 *   late_ms  the latest firing, past its due, in ms of the boot clock
 *   turns    the worker's yields over the run (it kept running)
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 4
#define DUE_MS 30
#define LIMIT_MS 2000

static volatile int stop, fired;
static volatile long fired_at;
static volatile unsigned long turns;

static long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void *worker(void *a)
{
	(void)a;
	while (!stop) {
		turns++;
		sched_yield();
	}
	return 0;
}

static void on_sig(int sig)
{
	(void)sig;
	fired_at = now_ns();
	fired = 1;
}

int main(int argc, char **argv)
{
	long rounds = ROUNDS, yield = 1;
	for (int i = 1; i < argc; i++) {
		sscanf(argv[i], "rounds=%ld", &rounds);
		sscanf(argv[i], "yield=%ld", &yield);
	}
	signal(SIGUSR1, on_sig);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	timer_t id;
	pthread_t w;
	if (timer_create(CLOCK_MONOTONIC, &ev, &id) || pthread_create(&w, 0, worker, 0)) {
		printf("dueyield: timer_create or pthread_create failed\n");
		return 1;
	}
	int nfired = 0;
	long late_max = 0;
	for (int r = 0; r < rounds; r++) {
		fired = 0;
		long due = now_ns() + DUE_MS * 1000000L, limit = due + LIMIT_MS * 1000000L;
		struct itimerspec v = { .it_value = { 0, DUE_MS * 1000000L } };
		timer_settime(id, 0, &v, 0);
		while (!fired && now_ns() < limit) {
			for (volatile int i = 0; i < 20000; i++)
				;
			if (yield)
				sched_yield();
		}
		if (!fired)
			break;
		nfired++;
		if (fired_at - due > late_max)
			late_max = fired_at - due;
	}
	printf("@result {\"name\":\"dueyield\",\"rounds\":%ld,\"fired\":%d,\"late_ms\":%ld,\"turns\":%lu}\n",
	       rounds, nfired, late_max / 1000000, turns);
	if (nfired != rounds) {
		fflush(stdout);
		exit(1);             /* the worker may be stuck: not joined */
	}
	stop = 1;
	pthread_join(w, 0);
	return 0;
}
