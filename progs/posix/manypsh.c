/*
 * manypsh: hundreds of threads blocked at once in process-shared waits,
 * as Linux allows (the bound this checks: docs/posix.md). In memory two
 * processes share (MAP_SHARED | MAP_ANONYMOUS, made before a fork), a
 * forked child's NC threads (argv[2], default 40) and the parent's NT
 * (argv[1], default 400) wait, half on a process-shared condition, half
 * in sem_wait on a process-shared semaphore. Once all wait, the parent
 * broadcasts and posts once per semaphore waiter, and both processes
 * join their threads: every waiter must wake. Each such wait is a
 * kernel futex wait; on the upcall packages only its thread blocks, and
 * before the kernel kept a done list (kernel/kop.c) each held a place in
 * its VP's event queue of 128, so past about 127 waiters a VP blocked
 * whole and the program hung. @result {"name": "manypsh", "checks",
 * "failures", "threads", "child", "setup_ms": until all waited,
 * "wake_ms": from the broadcast until all were joined}. Guest times (the
 * harness runs it under --icount).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define CHECK_NAME "manypsh"
#include <check.h>

#define MS 1000000LL

struct shared {
	pthread_mutex_t mx;
	pthread_cond_t cv;
	sem_t sem;
	int waiting, go, woke, bad;
};

static struct shared *sh;

static int64_t ms_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / MS;
}

static void *waiter(void *arg)
{
	int ok;
	if ((intptr_t)arg) {                      /* the semaphore */
		__atomic_fetch_add(&sh->waiting, 1, __ATOMIC_SEQ_CST);
		ok = sem_wait(&sh->sem) == 0;
	} else {                                  /* the condition */
		pthread_mutex_lock(&sh->mx);
		sh->waiting++;
		int r = 0;
		while (!sh->go && r == 0)
			r = pthread_cond_wait(&sh->cv, &sh->mx);
		ok = r == 0 && sh->go;
		pthread_mutex_unlock(&sh->mx);
	}
	if (!ok)
		__atomic_fetch_add(&sh->bad, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&sh->woke, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* n threads, alternately on the condition and the semaphore, joined. */
static pthread_t *start(int n)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 32 * 1024);
	pthread_t *th = calloc(n, sizeof *th);
	for (int i = 0; i < n; i++)
		CHECK(pthread_create(&th[i], &a, waiter, (void *)(intptr_t)(i & 1)) == 0);
	return th;
}

static void join(pthread_t *th, int n)
{
	for (int i = 0; i < n; i++)
		CHECK(pthread_join(th[i], 0) == 0);
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 400, nc = argc > 2 ? atoi(argv[2]) : 40;
	sh = mmap(0, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	CHECK(pthread_mutex_init(&sh->mx, &ma) == 0);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	CHECK(pthread_cond_init(&sh->cv, &ca) == 0);
	CHECK(sem_init(&sh->sem, 1, 0) == 0);

	int64_t m0 = ms_now();
	pid_t kid = fork();
	if (kid == 0) {
		join(start(nc), nc);
		_exit(failures != 0);
	}
	CHECK(kid > 0);
	pthread_t *th = start(nt);
	for (;;) {                                /* all waiting */
		pthread_mutex_lock(&sh->mx);
		int n = sh->waiting;
		pthread_mutex_unlock(&sh->mx);
		if (n == nt + nc)
			break;
		struct timespec d = { 0, 5 * MS };
		nanosleep(&d, 0);
	}
	int64_t setup = ms_now() - m0;

	int64_t w0 = ms_now();
	pthread_mutex_lock(&sh->mx);
	sh->go = 1;
	CHECK(pthread_cond_broadcast(&sh->cv) == 0);
	pthread_mutex_unlock(&sh->mx);
	for (int i = 0; i < nt / 2 + nc / 2; i++)
		CHECK(sem_post(&sh->sem) == 0);
	join(th, nt);
	int st = -1;
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	int64_t wake = ms_now() - w0;
	CHECK(sh->woke == nt + nc && sh->bad == 0);
	int v = -1;
	CHECK(sem_getvalue(&sh->sem, &v) == 0 && v == 0);
	printf("@result {\"name\": \"manypsh\", \"checks\": %d, \"failures\": %d, "
	       "\"threads\": %d, \"child\": %d, \"woke\": %d, \"setup_ms\": %lld, \"wake_ms\": %lld}\n",
	       checks, failures, nt, nc, sh->woke, (long long)setup, (long long)wake);
	return failures != 0;
}
