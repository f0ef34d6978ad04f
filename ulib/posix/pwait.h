/*
 * The POSIX layer's own waiting (ulib/posix/): waiter queues with
 * deadlines and cancellation, on thread_block_until (<thread.h>). A
 * waiter is a node on its thread's stack; a waker takes it off the queue
 * under the object's lock, then grants it (granted = 1) and unblocks its
 * thread, so a waiter that times out finds itself either still queued
 * (it leaves) or granted (it keeps what it was given). Internal.
 */
#ifndef POSIX_PWAIT_H
#define POSIX_PWAIT_H

#include <stdint.h>
#include <pthread.h>
#include <thread.h>
#include <spin.h>

struct pw {
	struct thread *t;
	volatile int granted;
	struct pw *next;
};

/* struct __pq of <pthread.h> is a queue of struct pw */
static inline struct pw **pq_head(struct __pq *q) { return (struct pw **)&q->__head; }

void pq_push(struct __pq *q, struct pw *w);
struct pw *pq_pop(struct __pq *q);
void pw_grant(struct pw *w);
/* Wait until w is granted, the deadline (ns since boot; 0: none) passes,
   or (cancel) the thread is cancelled. 0: granted (lock not held);
   ETIMEDOUT or ECANCELED: w is off the queue and `lk` is HELD, for the
   caller to fix its object's state. */
int pw_wait(struct pw *w, uint64_t deadline, int cancel, volatile int *lk, struct __pq *q);

static inline void plock(volatile int *lk, struct thread *self)
{
	spin_lock_by((struct spin *)lk, self);
}
static inline void punlock(volatile int *lk, struct thread *self)
{
	spin_unlock_by((struct spin *)lk, self);
}

/* An absolute time on `clock` as a deadline on the boot clock (never 0);
   -EINVAL for a malformed time. */
int64_t pdeadline(clockid_t clock, const struct timespec *abstime);

/* The POSIX layer's cancellation state (pthread.c). */
int pcancel_pending(void);
__attribute__((noreturn)) void pcancel_act(void);

#endif
