/*
 * slicesleep: a sleeper beside threads that only compute wakes within a
 * few time slices, wherever its deadline falls. Main sleeps `rounds`
 * times (ROUNDS) for about one time slice (1 ms: tutor's and prio's), the
 * length moved by `step` ns (STEP_NS) each round from `from` (SLEEP_NS),
 * so that its deadline sweeps across the moment the computing thread's
 * slice ends; one computing thread per CPU (or `computers`) loops
 * meanwhile. The VP runtime lost main two ways (ulib/rt/rt_switch.c's
 * rt_run_thread): a deadline that fired between the requeue of the
 * thread a slice's end turned out and the scheduler loop's pick queued
 * main behind it, and the pick, given that thread back, dropped its
 * slice for "nobody waits"; a slice that ended between two threads (or
 * with its thread blocked) turned nobody out, and the next ran with none.
 * Either way main never ran again (atforkloop's tutor-1 hang, 2 boots in
 * 60 under load). A computing thread that sees main make no progress for
 * giveup_ms (GIVEUP_MS, or giveup=MS) of the boot clock yields once (a
 * fail-safe, not a timing: main needs one slice), and the round counts as
 * late. Arguments NAME=VALUE, any order.
 * Prints @result {"name":"slicesleep","rounds":..,"late":..,"first_late":..,"computers":..}
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 3200
#define SLEEP_NS (1000000 - 40000)   /* the first round's sleep */
#define STEP_NS 25
#define GIVEUP_MS 200
#define MAXCOMP 8

static volatile int stop;
static volatile long progress_ms;    /* main's last wake-up */
static volatile int yielded;         /* fail-safe yields since main's last wake-up */
static volatile unsigned long sink;
static long giveup_ms = GIVEUP_MS;

static long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void *compute(void *arg)
{
	(void)arg;
	for (unsigned long i = 1; !stop; i++) {
		sink = sink * 31 + i;
		if (i % 4096 == 0 && now_ns() / 1000000 - progress_ms > giveup_ms) {
			yielded++;
			progress_ms = now_ns() / 1000000;
			sched_yield();   /* main is stuck behind us: let it run */
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	long rounds_n = ROUNDS, step = STEP_NS, from = SLEEP_NS, ncomp = 0;
	for (int i = 1; i < argc; i++) {   /* (the package's own, pkg=..., too) */
		sscanf(argv[i], "giveup=%ld", &giveup_ms);
		sscanf(argv[i], "rounds=%ld", &rounds_n);
		sscanf(argv[i], "step=%ld", &step);
		sscanf(argv[i], "from=%ld", &from);
		sscanf(argv[i], "computers=%ld", &ncomp);
	}
	long ncpu = ncomp ? ncomp : sysconf(_SC_NPROCESSORS_ONLN);
	int nc = ncpu < 1 ? 1 : ncpu > MAXCOMP ? MAXCOMP : (int)ncpu;
	pthread_t t[MAXCOMP];
	progress_ms = now_ns() / 1000000;
	for (int i = 0; i < nc; i++)
		if (pthread_create(&t[i], 0, compute, 0)) {
			printf("slicesleep: pthread_create failed\n");
			return 1;
		}
	int rounds = 0, late = 0, first_late = -1;
	for (int r = 0; r < rounds_n; r++) {
		struct timespec dl;
		long at = now_ns() + from + r * step;
		dl.tv_sec = at / 1000000000L;
		dl.tv_nsec = at % 1000000000L;
		yielded = 0;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, 0))
			;
		progress_ms = now_ns() / 1000000;
		if (yielded) {
			late++;
			if (first_late < 0)
				first_late = r;
		}
		rounds++;
	}
	stop = 1;
	for (int i = 0; i < nc; i++)
		pthread_join(t[i], 0);
	printf("@result {\"name\":\"slicesleep\",\"rounds\":%d,\"late\":%d,\"first_late\":%d,\"computers\":%d}\n",
	       rounds, late, first_late, nc);
	return late != 0;
}
