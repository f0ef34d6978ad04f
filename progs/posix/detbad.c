/*
 * detbad: programs that det's parallel phase (`pkg=det det=par`,
 * threadpkgs/det/par.c) must end with a clear message, not hang. An
 * ordinary pthreads program; on any other package each mode completes.
 *
 *   detbad spin     a thread waits for a flag with a plain loop (no
 *                   library call) that main sets and then joins it: ad
 *                   hoc synchronization, outside DTHREADS's model. Under
 *                   det=par the waiter's view never changes, main waits at
 *                   its join's fence, and det ends the program (status
 *                   87) naming the spinning thread (`detspin=S`).
 *   detbad lock     two threads take two mutexes in opposite orders, each
 *                   holding its first until the other has it: a deadlock
 *                   det reports (status 86) naming both and main.
 *   detbad quota MB every one of 4 threads writes every page of MB MiB (at most 8)
 *                   array in the program's data in one parallel phase, so
 *                   each needs a private copy and a twin of each page:
 *                   with the kernel's memquota below that the space is
 *                   killed with a message (kernel/view.c).
 *
 * Each mode prints @result {"name":"detbad","mode":M,...} if it ends.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int flag;
static volatile long spins;

static void *spinner(void *a)
{
	(void)a;
	while (!flag)                    /* no synchronization: det=par's view stays still */
		spins++;
	return 0;
}

static int spin(void)
{
	pthread_t t;
	pthread_create(&t, 0, spinner, 0);
	sched_yield();                   /* (a fence: the spinner runs from here on, flag 0) */
	flag = 1;
	pthread_join(t, 0);
	printf("@result {\"name\":\"detbad\",\"mode\":\"spin\",\"ended\":1}\n");
	return 0;
}

static pthread_mutex_t ma = PTHREAD_MUTEX_INITIALIZER, mb = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *locker(void *a)
{
	int first = a != 0;
	pthread_mutex_lock(first ? &mb : &ma);
	pthread_barrier_wait(&both);     /* each holds its first */
	pthread_mutex_lock(first ? &ma : &mb);
	pthread_mutex_unlock(&ma);
	pthread_mutex_unlock(&mb);
	return 0;
}

static int lock(void)
{
	pthread_t t[2];
	pthread_barrier_init(&both, 0, 2);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], 0, locker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	printf("@result {\"name\":\"detbad\",\"mode\":\"lock\",\"ended\":1}\n");
	return 0;
}

#define QUOTA_MAX (8 << 20)
static char big[QUOTA_MAX];
static long qbytes;

static void *writer(void *a)
{
	for (long i = 0; i < qbytes; i += 4096)
		big[i] = (char)(long)a;
	return 0;
}

static int quota(long mb)
{
	pthread_t t[4];
	qbytes = mb << 20 > QUOTA_MAX ? QUOTA_MAX : mb << 20;
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], 0, writer, (void *)(i + 1));
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	long sum = 0;
	for (long i = 0; i < qbytes; i += 4096)
		sum += big[i];
	printf("@result {\"name\":\"detbad\",\"mode\":\"quota\",\"ended\":1,\"sum\":%ld}\n", sum);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	if (!strcmp(m, "spin"))
		return spin();
	if (!strcmp(m, "lock"))
		return lock();
	if (!strcmp(m, "quota"))
		return quota(argc > 2 ? atol(argv[2]) : 8);
	printf("usage: detbad spin | lock | quota MB\n");
	return 2;
}
