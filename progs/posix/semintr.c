/*
 * semintr: a handler without SA_RESTART that interrupts sem_wait ends it
 * with EINTR even when the handler itself posts the semaphore: on Linux
 * the wait has given up before the handler runs, so the post finds no
 * waiter and stays in the count. Here the handler runs inside the wait,
 * with the waiter still queued, and its post used to hand the waiter the
 * token: sem_wait returned 0 and the count stayed 0 (the Open POSIX
 * suite's sigaction 17 shape lost this race now and then, a post from
 * another thread right after the handler). With SA_RESTART the wait goes
 * on and takes the post, as on Linux.
 *
 * @result {"name": "semintr", "checks": N, "failures": F}
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#define CHECK_NAME "semintr"
#include <check.h>

#define ROUNDS 5

static sem_t sem;
static volatile int waiting;

static void post(int sig)
{
	(void)sig;
	sem_post(&sem);
}

static void *waiter(void *arg)
{
	(void)arg;
	waiting = 1;
	int r = sem_wait(&sem);
	return (void *)(long)(r == 0 ? 0 : errno);
}

/* Until the waiter is on the semaphore's queue: a signal before that
   runs its handler outside the wait, whose post the wait then takes
   (no EINTR on Linux either). Anima's sem_t shows its queue's head;
   elsewhere (glibc, to compare) a pause has to do. */
static void queued(void)
{
#ifdef __GLIBC__
	struct timespec ms50 = { 0, 50000000 };
	nanosleep(&ms50, 0);
#else
	while (!__atomic_load_n(&sem.__head, __ATOMIC_ACQUIRE))
		sched_yield();
#endif
}

/* one thread waits, a signal's handler posts; what sem_wait returned and
   the count after */
static void round_trip(int flags, long want, int value)
{
	struct sigaction a = { .sa_handler = post, .sa_flags = flags };
	sigemptyset(&a.sa_mask);
	sigaction(SIGUSR1, &a, 0);
	sem_init(&sem, 0, 0);
	waiting = 0;
	pthread_t t;
	pthread_create(&t, 0, waiter, 0);
	while (!waiting)
		sched_yield();
	queued();
	pthread_kill(t, SIGUSR1);
	void *r;
	pthread_join(t, &r);
	int v = -1;
	sem_getvalue(&sem, &v);
	CHECK((long)r == want);
	CHECK(v == value);
	sem_destroy(&sem);
}

int main(void)
{
	for (int i = 0; i < ROUNDS; i++) {
		round_trip(0, EINTR, 1);
		round_trip(SA_RESTART, 0, 0);
	}
	printf("@result {\"name\": \"semintr\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
