/*
 * slicewait: a thread that computes does not keep a runnable thread of
 * its VP off it for good. Main waits on a semaphore that a worker posts;
 * the worker then loops until main, woken, sets a flag: (a) locking and
 * unlocking a mutex nobody else wants, (b) only computing. Glibc on
 * Linux time-slices SCHED_OTHER threads, so main runs within a slice
 * (the public suite's pthread_mutex_lock 3-1 counts on it); a package
 * with no slice among one VP's threads never runs main again. A worker
 * that has looped GIVEUP_S seconds of the boot clock stops (a fail-safe,
 * not a timing: main needs one slice) and the round counts as stuck.
 * Prints @result {"name":"slicewait","rounds":..,"stuck":..,"stuck_lock":..}
 * (stuck_lock: of the stuck rounds, the lock/unlock ones).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 3
#define GIVEUP_S 5

static sem_t sem;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int flag, gaveup;
static volatile unsigned long sink;

static long now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void *worker(void *arg)
{
	int lock = arg != 0;
	long end = now_s() + GIVEUP_S;
	sem_post(&sem);
	for (unsigned long i = 1; !flag; i++) {
		if (lock) {
			pthread_mutex_lock(&mu);
			pthread_mutex_unlock(&mu);
		} else
			sink = sink * 31 + i;
		if (i % 4096 == 0 && now_s() > end) {
			gaveup = 1;
			break;
		}
	}
	return 0;
}

int main(void)
{
	int rounds = 0, stuck = 0, stuck_lock = 0;
	sem_init(&sem, 0, 0);
	for (int r = 0; r < 2 * ROUNDS; r++) {
		pthread_t t;
		flag = gaveup = 0;
		if (pthread_create(&t, 0, worker, (void *)(long)(r % 2 == 0))) {
			printf("slicewait: pthread_create failed\n");
			return 1;
		}
		sem_wait(&sem);
		flag = 1;
		pthread_join(t, 0);
		if (gaveup) {
			stuck++;
			stuck_lock += r % 2 == 0;
			printf("slicewait: round %d (%s): main never ran while the worker looped\n",
			       r, r % 2 == 0 ? "lock/unlock" : "compute");
		}
		rounds++;
	}
	printf("@result {\"name\":\"slicewait\",\"rounds\":%d,\"stuck\":%d,\"stuck_lock\":%d}\n",
	       rounds, stuck, stuck_lock);
	return stuck != 0;
}
