/*
 * psemintr: semintr's check on the process-shared semaphores, sem_init
 * with pshared 1 in MAP_SHARED memory and a named one (sem_open): a
 * handler without SA_RESTART that interrupts sem_wait ends it with
 * EINTR even when the handler itself posts, or another thread posts
 * right after it; the post stays in the count (Linux: the wait gave up
 * before the handler ran). With SA_RESTART the wait takes the post.
 *
 * @result {"name": "psemintr", "checks": N, "failures": F}
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#define CHECK_NAME "psemintr"
#include <check.h>

#define ROUNDS 100

static sem_t *sem;
static const char *kind;
static volatile int waiting, ran, self_post;

static void post(int sig)
{
	(void)sig;
	if (self_post)
		sem_post(sem);
	ran = 1;
}

static void *waiter(void *arg)
{
	(void)arg;
	waiting = 1;
	int r = sem_wait(sem);
	return (void *)(long)(r == 0 ? 0 : errno);
}

/* Until the waiter sleeps on the word: __nwait counts it just before
   its wait; a few turns more see it in. Elsewhere a pause. */
static void queued(void)
{
#ifdef __GLIBC__
	struct timespec ms50 = { 0, 50000000 };
	nanosleep(&ms50, 0);
#else
	while (!__atomic_load_n(&sem->__nwait, __ATOMIC_ACQUIRE))
		sched_yield();
	for (int i = 0; i < 20; i++)
		sched_yield();
#endif
}

static void round_trip(int flags, int by_handler, long want, int value)
{
	struct sigaction a = { .sa_handler = post, .sa_flags = flags };
	sigemptyset(&a.sa_mask);
	sigaction(SIGUSR1, &a, 0);
	waiting = 0;
	ran = 0;
	self_post = by_handler;
	pthread_t t;
	pthread_create(&t, 0, waiter, 0);
	while (!waiting)
		sched_yield();
	queued();
	pthread_kill(t, SIGUSR1);
	if (!by_handler) {
		while (!ran)
			sched_yield();
		sem_post(sem);
	}
	void *r;
	pthread_join(t, &r);
	int v = -1;
	sem_getvalue(sem, &v);
	if ((long)r != want || v != value)
		printf("psemintr: %s, %s, posted by %s: sem_wait %ld (want %ld), count %d (want %d)\n",
		       kind, flags ? "SA_RESTART" : "no SA_RESTART", by_handler ? "the handler" : "main",
		       (long)r, want, v, value);
	CHECK((long)r == want);
	CHECK(v == value);
	while (v-- > 0)
		sem_trywait(sem);
}

static void rounds(void)
{
	for (int i = 0; i < ROUNDS; i++) {
		round_trip(0, 1, EINTR, 1);
		round_trip(SA_RESTART, 1, 0, 0);
		round_trip(0, 0, EINTR, 1);
	}
}

int main(void)
{
	sem = mmap(0, sizeof *sem, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sem != MAP_FAILED && sem_init(sem, 1, 0) == 0);
	kind = "sem_init pshared";
	rounds();
	sem_destroy(sem);
	sem_unlink("/psemintr");
	sem = sem_open("/psemintr", O_CREAT | O_EXCL, 0600, 0);
	CHECK(sem != SEM_FAILED);
	kind = "sem_open";
	rounds();
	sem_close(sem);
	sem_unlink("/psemintr");
	printf("@result {\"name\": \"psemintr\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
