/* A bounded buffer the way Linux pthread code writes it: producers and
   consumers on a mutex and two condition variables, a barrier to start
   together, a reader-writer lock around the statistics, a timed wait for
   the stragglers, thread-local counters. Written for Linux; builds here
   unchanged (test_posix.py::test_bounded_buffer). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <getopt.h>

#define CAP 8

static int buf[CAP], head, tail, count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t stats_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t start;
static long consumed_sum, consumed_n;
static __thread long my_items;
static int nprod = 3, ncons = 2, per = 2000;

static void put(int v)
{
	pthread_mutex_lock(&lock);
	while (count == CAP)
		pthread_cond_wait(&not_full, &lock);
	buf[tail] = v;
	tail = (tail + 1) % CAP;
	count++;
	pthread_cond_signal(&not_empty);
	pthread_mutex_unlock(&lock);
}

static int get(void)
{
	pthread_mutex_lock(&lock);
	while (count == 0)
		pthread_cond_wait(&not_empty, &lock);
	int v = buf[head];
	head = (head + 1) % CAP;
	count--;
	pthread_cond_signal(&not_full);
	pthread_mutex_unlock(&lock);
	return v;
}

static void *producer(void *arg)
{
	long id = (long)arg;
	pthread_barrier_wait(&start);
	for (int i = 1; i <= per; i++) {
		put((int)(id * 100000 + i));
		my_items++;
		if (i % 500 == 0)
			sched_yield();
	}
	return (void *)my_items;
}

static void *consumer(void *arg)
{
	long n = (long)arg, sum = 0;
	pthread_barrier_wait(&start);
	for (long i = 0; i < n; i++) {
		int v = get();
		if (v < 0) {
			fprintf(stderr, "bad item %d\n", v);
			exit(2);
		}
		sum += v;
		my_items++;
	}
	pthread_rwlock_wrlock(&stats_lock);
	consumed_sum += sum;
	consumed_n += my_items;
	pthread_rwlock_unlock(&stats_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int c;
	while ((c = getopt(argc, argv, "p:c:n:")) != -1) {
		switch (c) {
		case 'p': nprod = atoi(optarg); break;
		case 'c': ncons = atoi(optarg); break;
		case 'n': per = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-p producers] [-c consumers] [-n items]\n", argv[0]);
			return 1;
		}
	}
	if (nprod < 1 || ncons < 1 || per < 1 || (long)nprod * per % ncons) {
		fprintf(stderr, "%s: producers*items must divide among consumers\n", argv[0]);
		return 1;
	}
	pthread_t *t = calloc(nprod + ncons, sizeof *t);
	if (!t || pthread_barrier_init(&start, NULL, nprod + ncons)) {
		perror("setup");
		return 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < nprod; i++)
		if (pthread_create(&t[i], NULL, producer, (void *)(i + 1))) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < ncons; i++)
		if (pthread_create(&t[nprod + i], NULL, consumer, (void *)((long)nprod * per / ncons))) {
			perror("pthread_create");
			return 1;
		}
	long produced = 0;
	for (int i = 0; i < nprod; i++) {
		void *r;
		pthread_join(t[i], &r);
		produced += (long)r;
	}
	for (int i = 0; i < ncons; i++)
		pthread_join(t[nprod + i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* a timed wait nobody signals must time out */
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_nsec += 20 * 1000 * 1000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	int rc = pthread_cond_timedwait(&not_empty, &lock, &dl);
	pthread_mutex_unlock(&lock);

	long want = 0;
	for (long p = 1; p <= nprod; p++)
		want += p * 100000L * per + (long)per * (per + 1) / 2;
	pthread_rwlock_rdlock(&stats_lock);
	int ok = produced == (long)nprod * per && consumed_n == produced && consumed_sum == want &&
		 count == 0 && rc == ETIMEDOUT;
	printf("@result {\"name\": \"bbuf\", \"ok\": %s, \"produced\": %ld, \"consumed\": %ld, "
	       "\"sum\": %ld, \"want\": %ld, \"timedwait\": \"%s\", \"ms\": %.1f}\n",
	       ok ? "true" : "false", produced, consumed_n, consumed_sum, want, strerror(rc),
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	pthread_rwlock_unlock(&stats_lock);
	pthread_barrier_destroy(&start);
	free(t);
	return ok ? 0 : 3;
}
