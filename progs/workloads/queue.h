/*
 * queue.h: a bounded FIFO of pointers between pipeline stages (dedup.c),
 * a mutex and two condition variables. A stage that ends calls q_close;
 * when every producer has closed it and it is empty, q_get returns 0.
 */
#ifndef WL_QUEUE_H
#define WL_QUEUE_H
#include <pthread.h>

#define QCAP 64

struct queue {
	void *item[QCAP];
	int head, n, open;            /* open: producers not yet closed */
	pthread_mutex_t m;
	pthread_cond_t more, room;
};

static inline void q_init(struct queue *q, int producers)
{
	q->head = q->n = 0;
	q->open = producers;
	pthread_mutex_init(&q->m, 0);
	pthread_cond_init(&q->more, 0);
	pthread_cond_init(&q->room, 0);
}

static inline void q_put(struct queue *q, void *x)
{
	pthread_mutex_lock(&q->m);
	while (q->n == QCAP)
		pthread_cond_wait(&q->room, &q->m);
	q->item[(q->head + q->n++) % QCAP] = x;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->m);
}

static inline void *q_get(struct queue *q)
{
	pthread_mutex_lock(&q->m);
	while (!q->n && q->open)
		pthread_cond_wait(&q->more, &q->m);
	void *x = 0;
	if (q->n) {
		x = q->item[q->head];
		q->head = (q->head + 1) % QCAP;
		q->n--;
		pthread_cond_signal(&q->room);
	}
	pthread_mutex_unlock(&q->m);
	return x;
}

static inline void q_close(struct queue *q)
{
	pthread_mutex_lock(&q->m);
	if (--q->open == 0)
		pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->m);
}
#endif
