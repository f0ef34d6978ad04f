/*
 * yieldshare: sched_yield lets the other thread run even when another
 * program shares the CPUs. A forked child computes for good (a busy
 * program beside ours, as in the public suite's sched_yield 1-1); `busy` counts and yields; `runner` yields N
 * times and counts the yields after which busy's count had not moved.
 * On Linux (the public suite's sched_yield 1-1 pins both threads to one
 * CPU) each yield runs busy. Here nothing pins a thread, so with three
 * runnable programs' worth of VPs on two CPUs the VP holding busy is off
 * its CPU part of the time: a yield that found nobody queued at user
 * level returned at once (naive: 284 of 1,000 missed), where it should
 * give the processor up as Linux's does (the kernel then runs or pulls
 * the waiting VP). Where the two threads land differs run to run (on
 * one VP they simply take turns), so ROUNDS pairs are made one after
 * another and every miss counts. Prints @result {"name":"yieldshare",...}.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N 500
#define ROUNDS 8

static volatile long count;
static volatile int started, done;

static void *busy(void *arg)
{
	(void)arg;
	started = 1;
	while (!done) {
		count++;
		sched_yield();
	}
	return 0;
}

static void *runner(void *arg)
{
	(void)arg;
	long missed = 0;
	while (!started)
		sched_yield();
	for (int i = 0; i < N; i++) {
		long c = count;
		sched_yield();
		if (c == count)
			missed++;
	}
	return (void *)missed;
}

int main(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t child = fork();
	if (child == 0)
		for (;;)
			;                    /* computes until killed */
	struct timespec d = { 0, 50 * 1000 * 1000 };
	nanosleep(&d, 0);                /* the child is under way */
	long missed = 0;
	for (int k = 0; k < ROUNDS; k++) {
		pthread_t b, r;
		void *m;
		started = done = 0;
		pthread_create(&b, 0, busy, 0);
		pthread_create(&r, 0, runner, 0);
		pthread_join(r, &m);
		done = 1;
		pthread_join(b, 0);
		missed += (long)m;
	}
	kill(child, SIGKILL);
	waitpid(child, 0, 0);
	printf("@result {\"name\":\"yieldshare\",\"yields\":%d,\"missed\":%ld,\"cpus\":%ld}\n",
	       N * ROUNDS, missed, ncpu);
	return 0;
}
