/*
 * Waiter queues: the one implementation behind every blocking object of
 * the user library (<animart/sync.h>'s, ulib/pthread's, ulib/libc's
 * pipes, message queues and futexes). A waiter is a node on its
 * thread's stack; a waker takes it off the queue under the object's
 * lock, then grants it (wq_grant: granted = 1, and unblock), so a waiter
 * loops until granted (thread_block may return early on a stale permit).
 *
 * The order is FIFO unless the waiting thread's package orders waiters
 * (struct thread_ops.wait_first): then the new waiter goes before the
 * first it should be woken before (prio: the highest priority first,
 * FIFO among equals). Only a push onto a non-empty queue asks: a lone
 * waiter, the common case, pays nothing for it. The order is taken at
 * the push; a priority that changes during the wait does not move it.
 *
 * The POSIX layer keeps its queues in <pthread.h>'s struct __pq (two
 * pointers, the same layout) and its nodes are these: may_alias lets
 * both be reached through these types.
 */
#ifndef ANIMART_WAITQ_H
#define ANIMART_WAITQ_H

#include <animart/thread.h>

struct waiter {
	struct thread *t;
	volatile int granted;
	struct waiter *next;
} __attribute__((may_alias));

struct waitq {
	struct waiter *head, *tail;
} __attribute__((may_alias));

/* w where its package's order puts it, on a non-empty q (waitq.c). */
void wq_insert(struct waitq *q, struct waiter *w);

/* Take w off q if it is there (lock held): 1 if it was (a waiter that
   gives up: timeout, cancel). */
int wq_remove(struct waitq *q, struct waiter *w);

static inline void wq_push(struct waitq *q, struct waiter *w)
{
	w->next = 0;
	if (q->tail) {
		if (__builtin_expect(w->t->ops->wait_first != 0, 0)) {
			wq_insert(q, w);
			return;
		}
		q->tail->next = w;
	} else
		q->head = w;
	q->tail = w;
}

static inline struct waiter *wq_pop(struct waitq *q)
{
	struct waiter *w = q->head;
	while (w && __builtin_expect(!thread_lives(w->t), 0))
		w = w->next;                 /* (a fork's child: copies of its parent's waiters) */
	q->head = w ? w->next : 0;
	if (!q->head)
		q->tail = 0;
	return w;
}

/* Grant w (taken off its queue, the lock released by the caller) and
   wake it. The thread pointer is read before `granted` is set: once
   granted, the waiter may return and its stack node vanish. */
static inline void wq_grant(struct waiter *w)
{
	struct thread *t = w->t;
	__atomic_store_n(&w->granted, 1, __ATOMIC_RELEASE);
	thread_unblock(t);
}

#endif
