/* POSIX barriers. */
#include <errno.h>
#include "pwait.h"
#include "pshared.h"
#include <animart/fence.h>

int pthread_barrierattr_init(pthread_barrierattr_t *a)
{
	*a = (pthread_barrierattr_t){ 0 };
	return 0;
}

int pthread_barrierattr_destroy(pthread_barrierattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_barrierattr_setpshared(pthread_barrierattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	a->__pshared = pshared;
	return 0;
}

int pthread_barrierattr_getpshared(const pthread_barrierattr_t *a, int *pshared)
{
	*pshared = a->__pshared;
	return 0;
}

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n)
{
	if (!n)
		return EINVAL;
	*b = (pthread_barrier_t){ .__n = n, .__pshared = psh_here(b, a && a->__pshared == PTHREAD_PROCESS_SHARED) };
	return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *b)
{
	return (b->__pshared ? (uint32_t)b->__round : b->__arrived) ? EBUSY : 0;
}

/* The last to arrive releases the round and gets the serial value. */
int pthread_barrier_wait(pthread_barrier_t *b)
{
	FENCED_SYNC_WAIT(pthread_barrier_wait(b));
	if (b->__pshared)
		return psh_barrier_wait(b);
	struct thread *self = thread_self();
	plock(&b->__lk, self);
	if (++b->__arrived == b->__n) {
		b->__arrived = 0;
		b->__round++;
		struct waiter *all = b->__q.__head;
		b->__q.__head = b->__q.__tail = 0;
		punlock_grant_all(&b->__lk, all, self);
		return PTHREAD_BARRIER_SERIAL_THREAD;
	}
	struct waiter w = { self, 0, 0 };
	pq_push(&b->__q, &w);
	punlock(&b->__lk, self);
	/* No cancellation point, but an asynchronous cancel acts here, as
	   on Linux (PW_ASYNC): off the queue, the thread no longer counts
	   as arrived. Before, the wait went on for good. */
	if (pw_wait(&w, 0, PW_ASYNC, &b->__lk, &b->__q) == ECANCELED) {
		b->__arrived--;
		punlock(&b->__lk, self);
		pcancel_act();
	}
	return 0;
}
