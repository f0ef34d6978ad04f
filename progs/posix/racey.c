/*
 * racey: a deliberately racy pthreads program, for the deterministic
 * package (threadpkgs/det). Usage: racey [THREADS [ITERS]] (8, 20000).
 *
 * Every thread does unsynchronized read-modify-writes on one shared
 * array: each step reads two slots chosen by the array's own contents,
 * mixes them with its id and writes a third. Under any ordinary
 * scheduler the interleaving, and so the final array, changes from run
 * to run; under det it is a function of the program alone. Besides the
 * race the threads also
 *   - take a mutex every LOG_EVERY steps and append their id to a log
 *     (the order threads got the lock),
 *   - meet at a barrier halfway,
 *   - call rand() (one shared state) and malloc (which block each got),
 *   - write their id to a pipe halfway between two of those lock rounds,
 *     up to 16 times each (main reads the order after the joins: `pipe`),
 *   - print one line each, unsynchronized, when they finish.
 * It ends with
 *   @result {"name":"racey","threads":T,"iters":N,"sig":"<hash of the
 *   array>","order":"<hash of the lock log>","rand":"<hash of the rand()
 *   values>","heap":"<hash of the malloc'd offsets>"}
 * and every figure in it, and the order of the printed lines, should be
 * the same in every run under det.
 *
 * `racey THREADS ITERS timed` also has every thread sleep (usleep 100)
 * and time out in a condition wait nobody signals (1 ms), every
 * LOG_EVERY steps: under det their timeouts come at the same points too.
 *
 * `racey THREADS ITERS heap` races on a malloc'd array instead of a
 * global one, and `addr` hashes the blocks' addresses themselves (not
 * offsets): under det=par the heap is isolated and placed like the
 * globals, so both are the same in every run too.
 *
 * `racey deadlock` deadlocks on purpose (main holds a mutex a thread
 * waits for, and joins that thread): det must say so and name both.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOTS     64
#define MAXT      64
#define LOG_EVERY 1000
#define LOGMAX    (1 << 16)

static volatile uint32_t gslot[SLOTS], *slot = gslot;
static int nthreads, iters, timed, onheap;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t half;
static int logv[LOGMAX];
static int nlog;
static uint64_t randh[MAXT], heaph[MAXT], addrh[MAXT];
static char *base;                  /* a block main got first: offsets from it */
static int pfd[2];                  /* the ids written, in the order written */

static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ULL;
	return h;
}

static void step(int id, int k)
{
	uint32_t a = slot[(uint32_t)(id + k) % SLOTS];
	uint32_t b = slot[a % SLOTS];
	uint32_t c = mix(a + b + (uint32_t)id);
	slot[c % SLOTS] = slot[c % SLOTS] + c;   /* read, then write: the race */
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	uint64_t rh = 0xcbf29ce484222325ULL, hh = rh, ah = rh;
	for (int k = 0; k < iters; k++) {
		step(id, k);
		if (k % LOG_EVERY == 0) {
			pthread_mutex_lock(&lock);
			if (nlog < LOGMAX)
				logv[nlog++] = id;
			if (timed) {
				struct timespec ts;
				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_nsec += 1000000;
				if (ts.tv_nsec >= 1000000000) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000;
				}
				rh = fnv(rh, (uint64_t)pthread_cond_timedwait(&never, &lock, &ts));
			}
			pthread_mutex_unlock(&lock);
			if (timed)
				usleep(100);
			rh = fnv(rh, (uint64_t)rand());
			char *m = malloc(16 + (size_t)(k % 200));
			hh = fnv(hh, (uint64_t)(m - base));
			ah = fnv(ah, (uint64_t)(uintptr_t)m);
			free(m);
		}
		if (k % LOG_EVERY == LOG_EVERY / 2 && k < 16 * LOG_EVERY) {
			char c = (char)id;
			if (write(pfd[1], &c, 1) != 1)
				printf("racey: pipe write failed\n");
		}
		if (k == iters / 2)
			pthread_barrier_wait(&half);
	}
	randh[id] = rh;
	heaph[id] = hh;
	addrh[id] = ah;
	printf("racey thread %d done\n", id);
	return 0;
}

static void *locker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	return 0;
}

static int deadlock(void)
{
	pthread_t t;
	pthread_mutex_lock(&lock);
	if (pthread_create(&t, 0, locker, 0))
		return 1;
	printf("racey: main joins a thread waiting for main's mutex\n");
	pthread_join(t, 0);
	printf("racey: not deadlocked?\n");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "deadlock"))
		return deadlock();
	nthreads = argc > 1 ? atoi(argv[1]) : 8;
	iters = argc > 2 ? atoi(argv[2]) : 20000;
	timed = argc > 3 && !strcmp(argv[3], "timed");
	onheap = argc > 3 && !strcmp(argv[3], "heap");
	if (nthreads < 1 || nthreads > MAXT || iters < 1) {
		printf("racey: bad arguments (1-%d threads, iters >= 1)\n", MAXT);
		return 2;
	}
	base = malloc(16);
	if (onheap && !(slot = calloc(SLOTS, sizeof *slot)))
		return 1;
	if (pipe(pfd)) {
		printf("racey: no pipe\n");
		return 1;
	}
	for (int i = 0; i < SLOTS; i++)
		slot[i] = mix((uint32_t)i + 1);
	pthread_barrier_init(&half, 0, (unsigned)nthreads);
	pthread_t t[MAXT];
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], 0, worker, (void *)(intptr_t)i)) {
			printf("racey: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], 0);
	uint64_t sig = 0xcbf29ce484222325ULL, order = sig, rh = sig, hh = sig, ah = sig;
	for (int i = 0; i < SLOTS; i++)
		sig = fnv(sig, slot[i]);
	for (int i = 0; i < nlog; i++)
		order = fnv(order, (uint64_t)logv[i]);
	for (int i = 0; i < nthreads; i++) {
		rh = fnv(rh, randh[i]);
		hh = fnv(hh, heaph[i]);
		ah = fnv(ah, addrh[i]);
	}
	uint64_t ph = sig ^ order;          /* (any start: the same in every run) */
	char c[256];
	close(pfd[1]);
	for (long n; (n = read(pfd[0], c, sizeof c)) > 0; )
		for (long i = 0; i < n; i++)
			ph = fnv(ph, (uint64_t)c[i]);
	printf("@result {\"name\":\"racey\",\"threads\":%d,\"iters\":%d,\"sig\":\"%016llx\","
	       "\"order\":\"%016llx\",\"rand\":\"%016llx\",\"heap\":\"%016llx\",\"addr\":\"%016llx\","
	       "\"base\":\"%p\",\"pipe\":\"%016llx\"}\n",
	       nthreads, iters, (unsigned long long)sig, (unsigned long long)order,
	       (unsigned long long)rh, (unsigned long long)hh, (unsigned long long)ah, (void *)base,
	       (unsigned long long)ph);
	return 0;
}
