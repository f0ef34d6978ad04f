/*
 * altjoin: a thread on a stack the program gave it (pthread_attr_setstack,
 * from malloc) waits on a mutex main holds; another thread joins it and
 * is cancelled inside that join; main joins the cancelled joiner, lets
 * the mutex go and joins the first. det=par keeps the heap in every
 * thread's view: such a thread's TLS block lives there.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static int bad;

static void *waiter(void *a)
{
	(void)a;
	pthread_mutex_lock(&mtx);
	pthread_mutex_unlock(&mtx);
	return (void *)7;
}

static void *joiner(void *a)
{
	pthread_join(*(pthread_t *)a, 0);
	bad++;                           /* not cancelled */
	return 0;
}

int main(int argc, char **argv)
{
	int alt = argc > 1 ? atoi(argv[1]) : 1, rounds = argc > 2 ? atoi(argv[2]) : 3, ok = 0;
	for (int r = 0; r < rounds; r++) {
		pthread_attr_t at;
		pthread_attr_init(&at);
		size_t sz = 65536;
		void *stk = alt ? malloc(sz + 4096) : 0;
		if (alt)
			pthread_attr_setstack(&at, (void *)(((unsigned long)stk + 4095) & ~4095UL), sz);
		pthread_t c, j;
		void *v = 0;
		pthread_mutex_lock(&mtx);
		if (pthread_create(&c, &at, waiter, 0) || pthread_create(&j, 0, joiner, &c))
			return 2;
		sched_yield();
		pthread_cancel(j);
		int e1 = pthread_join(j, &v);
		int can = v == PTHREAD_CANCELED;
		pthread_mutex_unlock(&mtx);
		int e2 = pthread_join(c, &v);
		ok += !e1 && can && !e2 && v == (void *)7;
		free(stk);
	}
	printf("@result {\"name\":\"altjoin\",\"rounds\":%d,\"ok\":%d,\"bad\":%d}\n", rounds, ok, bad);
	return ok == rounds && !bad ? 0 : 1;
}
