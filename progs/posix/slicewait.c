/*
 * slicewait: a thread that computes does not keep a runnable thread of
 * its VP off it for good. Main waits on a semaphore that a worker posts;
 * the worker then loops until main, woken, sets a flag: (a) locking and
 * unlocking a mutex nobody else wants, (b) only computing, (c) only
 * computing, after main held a spin lock for HELD_MS past the worker's
 * creation (the slice ends inside it; the yield it defers to the unlock
 * queues main for a worker that then computes: prio's yield queued main
 * itself and set no slice, so main never ran again). Glibc on
 * Linux time-slices SCHED_OTHER threads, so main runs within a slice
 * (the public suite's pthread_mutex_lock 3-1 counts on it); a package
 * with no slice among one VP's threads never runs main again. A worker
 * that has looped giveup_ms of the boot clock (GIVEUP_MS, or the
 * argument giveup=MS) stops (a fail-safe, not a timing: main needs one
 * slice) and the round counts as stuck.
 * Prints @result {"name":"slicewait","rounds":..,"stuck":..,"stuck_lock":..}
 * (stuck_lock: of the stuck rounds, the lock/unlock ones).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 3
#define KINDS 3              /* lock/unlock, compute, held */
#define GIVEUP_MS 5000
#define HELD_MS 3

static sem_t sem;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spin;
static volatile int flag, gaveup;
static volatile unsigned long sink;
static long giveup_ms = GIVEUP_MS;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *worker(void *arg)
{
	int lock = arg != 0;
	long end = now_ms() + giveup_ms;
	sem_post(&sem);
	for (unsigned long i = 1; !flag; i++) {
		if (lock) {
			pthread_mutex_lock(&mu);
			pthread_mutex_unlock(&mu);
		} else
			sink = sink * 31 + i;
		if (i % 4096 == 0 && now_ms() > end) {
			gaveup = 1;
			break;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = 0, stuck = 0, stuck_lock = 0;
	if (argc > 1 && sscanf(argv[1], "giveup=%ld", &giveup_ms) != 1)
		giveup_ms = GIVEUP_MS;
	static const char *kind[KINDS] = { "lock/unlock", "compute", "held" };
	sem_init(&sem, 0, 0);
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	for (int r = 0; r < KINDS * ROUNDS; r++) {
		pthread_t t;
		flag = gaveup = 0;
		if (pthread_create(&t, 0, worker, (void *)(long)(r % KINDS == 0))) {
			printf("slicewait: pthread_create failed\n");
			return 1;
		}
		if (r % KINDS == 2) {
			long end = now_ms() + HELD_MS;
			pthread_spin_lock(&spin);
			while (now_ms() <= end)
				sink++;
			pthread_spin_unlock(&spin);
		}
		sem_wait(&sem);
		flag = 1;
		pthread_join(t, 0);
		if (gaveup) {
			stuck++;
			stuck_lock += r % KINDS == 0;
			printf("slicewait: round %d (%s): main never ran while the worker looped\n",
			       r, kind[r % KINDS]);
		}
		rounds++;
	}
	printf("@result {\"name\":\"slicewait\",\"rounds\":%d,\"stuck\":%d,\"stuck_lock\":%d}\n",
	       rounds, stuck, stuck_lock);
	return stuck != 0;
}
