/*
 * alarmspin: alarm's signal reaches a thread that computes without ever
 * calling the library (no fence, no turn), as the public suite's
 * sched_yield 1-1 relies on: its forked children bind to a CPU, arm
 * alarm(2) and loop `while (1);`, and the default action of SIGALRM
 * ends them, or the parent's waitpid never returns.
 *
 *   fork   a child arms ITIMER_REAL (alarm's timer, ms=N) and loops
 *          forever; the parent waits for it and checks it died of
 *          SIGALRM.
 *   spin   main blocks SIGALRM, makes a thread that arms the timer and
 *          loops until its handler sets a flag, and joins it. The
 *          signal is the program's: the looping thread is the one that
 *          takes it.
 *
 * Under det=par the timer thread was a det thread: it waited for a turn
 * of the token that the looping thread (holding it since the timer
 * thread's create, or running a parallel phase with no end) never gave
 * (threadpkgs/det/par.c: svc_create).
 * @result {"name": "alarmspin", "mode": M, "checks": N, "failures": F}
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_NAME "alarmspin"
#include <check.h>
#include <sigcatch.h>

static long alarm_ms = 100;
static volatile sig_atomic_t flag;

static void arm(void)
{
	struct itimerval it = { { 0, 0 }, { alarm_ms / 1000, alarm_ms % 1000 * 1000 } };
	setitimer(ITIMER_REAL, &it, 0);
}

static void on_alrm(int s)
{
	(void)s;
	flag = 1;
}

static void fork_mode(void)
{
	pid_t p = fork();
	CHECK(p >= 0);
	if (p == 0) {
		arm();
		for (;;)
			;            /* nothing but the signal ends this */
	}
	int st = 0;
	CHECK(waitpid(p, &st, 0) == p);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM);
}

static void *spinner(void *a)
{
	sigset_t al;
	sigemptyset(&al);
	sigaddset(&al, SIGALRM);
	CHECK(pthread_sigmask(SIG_UNBLOCK, &al, 0) == 0);   /* (main's, inherited: blocked) */
	arm();
	while (!flag)
		;
	return a;
}

static void spin_mode(void)
{
	sigset_t al;
	sigemptyset(&al);
	sigaddset(&al, SIGALRM);
	CHECK(sig_catch(SIGALRM, on_alrm, 0) == 0);
	CHECK(pthread_sigmask(SIG_BLOCK, &al, 0) == 0);   /* main does not take it */
	pthread_t t;
	CHECK(pthread_create(&t, 0, spinner, 0) == 0);
	CHECK(pthread_join(t, 0) == 0);
	CHECK(flag == 1);
}

int main(int argc, char **argv)
{
	const char *mode = "fork";
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "ms=", 3))
			alarm_ms = atol(argv[i] + 3);
		else
			mode = argv[i];
	}
	if (!strcmp(mode, "spin"))
		spin_mode();
	else
		fork_mode();
	printf("@result {\"name\": \"alarmspin\", \"mode\": \"%s\", \"checks\": %d, \"failures\": %d}\n",
	       mode, checks, failures);
	return failures != 0;
}
