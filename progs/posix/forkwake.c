/*
 * forkwake: three threads lock and unlock one mutex, with a condition
 * signal now and then, while main forks N times (default 100). A
 * pthread_atfork prepare handler takes the mutex, the parent and child
 * handlers give it back; each child locks it once more and exits; main
 * waits for it. Every fork leaves the parent's pages copy-on-write, and
 * the next writes break them while threads sleep in the kernel on their
 * park words there (kthread) or hand the mutex on.
 *
 * Two bugs hung it on kthread at -smp 2. A private futex word was keyed
 * by its frame: a break that gave the parent a new frame moved the
 * page's sleepers to it only after dropping the space lock, and a waker
 * on another CPU that read the new frame in between woke no one (the
 * parent hung with all four threads parked). And a child copied the
 * mutex's internal lock while a worker held it to queue itself, and
 * spun on it for good (ulib/pthread/pwait.h, plock). And a worker's
 * stack page first touched just as the fork copied got mapped in the
 * parent alone, before the fork's TLB shootdown: the worker queued its
 * node there on the mutex, whose page it still wrote through a stale
 * entry into the child's memory, and the child's unlock read the node
 * as zeros and died (kernel/fork.c, space_lock_settled). A child that
 * fails says how (its signal or exit status).
 * @result {"name": "forkwake", "forks": N, "bad": children that failed}
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static volatile int stop;
static volatile long counter;

static void pre(void) { pthread_mutex_lock(&m); }
static void par(void) { pthread_mutex_unlock(&m); }
static void chi(void) { pthread_mutex_unlock(&m); }

static void *worker(void *a)
{
	(void)a;
	while (!stop) {
		pthread_mutex_lock(&m);
		counter++;
		if (counter % 7 == 0)
			pthread_cond_signal(&c);
		pthread_mutex_unlock(&m);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	pthread_atfork(pre, par, chi);
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], 0, worker, 0);
	int bad = 0;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) {
			pthread_mutex_lock(&m);
			counter++;
			pthread_cond_broadcast(&c);
			pthread_mutex_unlock(&m);
			_exit(0);
		}
		int st = 0;
		pid_t w = waitpid(p, &st, 0);
		if (w != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
			bad++;
			if (w != p)
				printf("forkwake: fork %d pid %d: waitpid %d\n", i, p, w);
			else if (WIFSIGNALED(st))
				printf("forkwake: fork %d pid %d: signal %d\n", i, p,
				       WTERMSIG(st));
			else
				printf("forkwake: fork %d pid %d: status %#x\n", i, p, st);
		}
	}
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], 0);
	printf("@result {\"name\":\"forkwake\",\"forks\":%d,\"bad\":%d}\n", n, bad);
	return 0;
}
