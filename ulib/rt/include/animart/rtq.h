/*
 * A FIFO run queue under a spin lock: the building block of policies
 * (<animart/vprt.h>) that do not need their own. Called with software interrupts
 * off, as every policy hook is. Zero-filled memory is an empty queue.
 */
#ifndef ULIB_RTQ_H
#define ULIB_RTQ_H

#include <animart/vprt.h>

struct rtq {
	struct spin lock;
	struct uthread *head, *tail;
	volatile int len;
};

/* Queue t at the tail (or the head). */
static inline void rtq_push(struct rtq *q, struct uthread *t, int at_head)
{
	spin_lock_by(&q->lock, 0);
	if (!q->head) {
		t->next = 0;
		q->head = q->tail = t;
	} else if (at_head) {
		t->next = q->head;
		q->head = t;
	} else {
		t->next = 0;
		q->tail->next = t;
		q->tail = t;
	}
	q->len++;
	spin_unlock_by(&q->lock, 0);
}

/* Take the head, or 0 if the queue is empty. */
static inline struct uthread *rtq_pop(struct rtq *q)
{
	if (!__atomic_load_n(&q->len, __ATOMIC_RELAXED))
		return 0;
	spin_lock_by(&q->lock, 0);
	struct uthread *t = q->head;
	if (t) {
		if (!(q->head = t->next))
			q->tail = 0;
		q->len--;
	}
	spin_unlock_by(&q->lock, 0);
	return t;
}

#endif
