/* Waiter queues (<animart/waitq.h>): the ordered push and the removal. */
#include <animart/waitq.h>

/* Before the first waiter w's package says it goes before; FIFO among
   the rest. The queue is not empty (wq_push). */
void wq_insert(struct waitq *q, struct waiter *w)
{
	int (*first)(const struct thread *, const struct thread *) = w->t->ops->wait_first;
	struct waiter **p = &q->head;
	while (*p && !first(w->t, (*p)->t))
		p = &(*p)->next;
	w->next = *p;
	if (!*p)
		q->tail = w;
	*p = w;
}

int wq_remove(struct waitq *q, struct waiter *w)
{
	struct waiter *prev = 0;
	for (struct waiter *x = q->head; x; prev = x, x = x->next) {
		if (x != w)
			continue;
		if (prev)
			prev->next = w->next;
		else
			q->head = w->next;
		if (q->tail == w)
			q->tail = prev;
		return 1;
	}
	return 0;
}
