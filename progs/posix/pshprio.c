/*
 * pshprio: the order in which sem_post wakes SCHED_FIFO waiters of a
 * process-shared semaphore (in MAP_SHARED | MAP_ANONYMOUS memory). Three
 * waiters start in turn, each blocked before the next starts: A at
 * priority min+1, then B and C at min+2. Three posts, each once the
 * previous waiter has woken, must wake them in the order the package
 * schedules by: B, C, A where threads have priorities (prio: the
 * highest first, the longest waiting among equals, as POSIX asks and
 * the Open POSIX suite's sem_post 8-1 checks), A, B, C elsewhere (the
 * longest waiting first). Once with forked processes as the waiters,
 * once with threads of this process. @result {"name": "pshprio",
 * "checks", "failures", "procs": the processes' order, "threads": the
 * threads' order, e.g. "BCA"}.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define CHECK_NAME "pshprio"
#include <check.h>

struct shared {
	sem_t sem;
	int waiting, n;
	char order[4];
};

static struct shared *sh;
static const int prio[3] = { 1, 2, 2 };

static void pause_ms(int ms)
{
	struct timespec d = { 0, ms * 1000000L };
	nanosleep(&d, 0);
}

/* Waiter i: its priority, then the semaphore; it records its turn. */
static void wait_as(int i)
{
	struct sched_param p = { .sched_priority = sched_get_priority_min(SCHED_FIFO) + prio[i] };
	CHECK(pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0);
	__atomic_fetch_add(&sh->waiting, 1, __ATOMIC_SEQ_CST);
	CHECK(sem_wait(&sh->sem) == 0);
	sh->order[__atomic_fetch_add(&sh->n, 1, __ATOMIC_SEQ_CST)] = (char)('A' + i);
}

static void *thread_fn(void *arg)
{
	wait_as((int)(long)arg);
	return 0;
}

/* Start waiter i and let it block (its count, then a while). */
static void started(int i)
{
	while (__atomic_load_n(&sh->waiting, __ATOMIC_SEQ_CST) <= i)
		pause_ms(1);
	pause_ms(50);
}

/* Post once per waiter, each once the one before has woken. */
static void posts(void)
{
	for (int k = 0; k < 3; k++) {
		CHECK(sem_post(&sh->sem) == 0);
		for (int t = 0; t < 5000 && __atomic_load_n(&sh->n, __ATOMIC_SEQ_CST) <= k; t++)
			pause_ms(1);
		CHECK(sh->n == k + 1);
	}
}

static void reset(void)
{
	sh->waiting = sh->n = 0;
	sh->order[0] = sh->order[3] = 0;
}

int main(void)
{
	sh = mmap(0, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	CHECK(sem_init(&sh->sem, 1, 0) == 0);
	char procs[4], threads[4];

	reset();
	pid_t kid[3];
	for (int i = 0; i < 3; i++) {
		if ((kid[i] = fork()) == 0) {
			wait_as(i);
			_exit(failures != 0);
		}
		CHECK(kid[i] > 0);
		started(i);
	}
	posts();
	for (int i = 0; i < 3; i++) {
		int st = -1;
		CHECK(waitpid(kid[i], &st, 0) == kid[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	for (int i = 0; i < 4; i++)
		procs[i] = sh->order[i];

	reset();
	pthread_t th[3];
	for (int i = 0; i < 3; i++) {
		CHECK(pthread_create(&th[i], 0, thread_fn, (void *)(long)i) == 0);
		started(i);
	}
	posts();
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(th[i], 0) == 0);
	for (int i = 0; i < 4; i++)
		threads[i] = sh->order[i];

	printf("@result {\"name\": \"pshprio\", \"checks\": %d, \"failures\": %d, "
	       "\"procs\": \"%s\", \"threads\": \"%s\"}\n", checks, failures, procs, threads);
	return failures != 0;
}
