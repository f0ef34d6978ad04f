/*
 * Real-time scheduling is root's, as on Linux without CAP_SYS_NICE under
 * its default RLIMIT_RTPRIO of 0: a process that is not root may not
 * take up SCHED_FIFO or SCHED_RR (sched_setscheduler, sched_setparam,
 * pthread_setschedparam, pthread_setschedprio, pthread_create with
 * explicit scheduling: EPERM), nor raise the real-time priority it has;
 * it may lower it, and leave for SCHED_OTHER. Root may do all of it.
 * Each part runs in a forked child that turns into user 65534 (setuid);
 * the child's exit status is its failures.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_NAME "rtperm"
#include "check.h"

#define NOBODY 65534

static void *idle(void *arg)
{
	return arg;
}

static int set(int policy, int prio)
{
	struct sched_param p = { .sched_priority = prio };
	return sched_setscheduler(0, policy, &p) == 0 ? 0 : errno;
}

static int create(int policy, int prio)
{
	pthread_attr_t a;
	pthread_t t;
	struct sched_param p = { .sched_priority = prio };
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, policy);
	pthread_attr_setschedparam(&a, &p);
	int e = pthread_create(&t, &a, idle, 0);
	if (!e)
		pthread_join(t, 0);
	return e;
}

/* From SCHED_OTHER, as another user: no real-time policy at all. */
static int from_other(void)
{
	int bad = 0;
	struct sched_param p = { .sched_priority = 1 };
	bad += set(SCHED_FIFO, 1) != EPERM;
	bad += set(SCHED_RR, 1) != EPERM;
	bad += pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) != EPERM;
	bad += create(SCHED_RR, 1) != EPERM;
	bad += create(SCHED_OTHER, 0) != 0;
	bad += set(SCHED_OTHER, 0) != 0;
	int pol = -1;
	bad += pthread_getschedparam(pthread_self(), &pol, &p) != 0 || pol != SCHED_OTHER;
	return bad;
}

/* From SCHED_FIFO 10 (root's doing), as another user: lower, not raise. */
static int from_fifo(void)
{
	int bad = 0;
	struct sched_param p = { .sched_priority = 6 };
	bad += set(SCHED_FIFO, 5) != 0;                  /* lower: free */
	bad += sched_setparam(0, &p) != -1 || errno != EPERM;   /* 5 -> 6 */
	bad += pthread_setschedprio(pthread_self(), 6) != EPERM;
	bad += set(SCHED_RR, 5) != EPERM;                /* another RT policy */
	bad += create(SCHED_FIFO, 5) != 0;               /* its own: no raise */
	bad += create(SCHED_FIFO, 7) != EPERM;
	bad += pthread_setschedprio(pthread_self(), 3) != 0;
	bad += set(SCHED_OTHER, 0) != 0;                 /* leave: free */
	bad += set(SCHED_FIFO, 1) != EPERM;              /* and no way back */
	return bad;
}

static void child(int (*part)(void), int fifo_first, const char *name)
{
	pid_t c = fork();
	if (c == 0) {
		if (fifo_first && set(SCHED_FIFO, 10) != 0)
			_exit(100);
		if (setuid(NOBODY) != 0)
			_exit(101);
		_exit(part());
	}
	int st = -1;
	CHECK(waitpid(c, &st, 0) == c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		printf("rtperm: %s: status %#x\n", name, st);
}

int main(void)
{
	child(from_other, 0, "from SCHED_OTHER");
	child(from_fifo, 1, "from SCHED_FIFO");
	/* root: every change */
	CHECK(set(SCHED_RR, 20) == 0);
	CHECK(set(SCHED_FIFO, 30) == 0);
	CHECK(create(SCHED_FIFO, 40) == 0);
	CHECK(set(SCHED_OTHER, 0) == 0);
	printf("@result {\"name\": \"rtperm\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
