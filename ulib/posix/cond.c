/*
 * POSIX condition variables, with a clock attribute for timedwait.
 * A waiter queues on the condition before it releases the mutex, so a
 * signal sent after the release finds it; the signaller takes it off the
 * queue and grants it. Waits are cancellation points: a cancelled waiter
 * re-takes the mutex, as POSIX wants, before its cleanup handlers run.
 */
#include <errno.h>
#include "pwait.h"

int pthread_condattr_init(pthread_condattr_t *a)
{
	*a = (pthread_condattr_t){ .__clock = CLOCK_REALTIME };
	return 0;
}

int pthread_condattr_destroy(pthread_condattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clock)
{
	if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
		return EINVAL;
	a->__clock = clock;
	return 0;
}

int pthread_condattr_getclock(const pthread_condattr_t *a, clockid_t *clock)
{
	*clock = a->__clock;
	return 0;
}

int pthread_condattr_setpshared(pthread_condattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	a->__pshared = pshared;
	return 0;
}

int pthread_condattr_getpshared(const pthread_condattr_t *a, int *pshared)
{
	*pshared = a->__pshared;
	return 0;
}

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	*c = (pthread_cond_t){ .__clock = a ? a->__clock : CLOCK_REALTIME };
	return 0;
}

int pthread_cond_destroy(pthread_cond_t *c)
{
	return c->__q.__head ? EBUSY : 0;
}

static inline __attribute__((always_inline)) int wait(pthread_cond_t *c, pthread_mutex_t *m,
						       uint64_t deadline)
{
	struct thread *self = thread_self();
	int typed = m->__type | m->__ceiling, count = 1;
	if (__builtin_expect(typed, 0)) {
		if (m->__owner != self)
			return EPERM;        /* (a normal mutex keeps no owner) */
		count = m->__count;      /* a recursive mutex is released whole */
		m->__count = 1;
	}
	if (pcancel_pending())
		pcancel_act();
	struct pw w = { self, 0, 0 };
	plock(&c->__lk, self);
	pq_push(&c->__q, &w);
	punlock(&c->__lk, self);
	mutex_release(m);
	int r = pw_wait(&w, deadline, 1, &c->__lk, &c->__q);
	if (__builtin_expect(r, 0))
		punlock(&c->__lk, self);
	mutex_take(m);
	if (__builtin_expect(typed, 0))
		m->__count = count;
	if (r == ECANCELED)
		pcancel_act();
	return r;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return wait(c, m, 0);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
	int64_t d = pdeadline(c->__clock, abstime);
	return d < 0 ? EINVAL : wait(c, m, (uint64_t)d);
}

int pthread_cond_signal(pthread_cond_t *c)
{
	struct thread *self = thread_self();
	plock(&c->__lk, self);
	struct pw *w = pq_pop(&c->__q);
	punlock(&c->__lk, self);
	if (w)
		pw_grant(w);
	return 0;
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	if (!__atomic_load_n(&c->__q.__head, __ATOMIC_ACQUIRE))
		return 0;
	struct thread *self = thread_self();
	plock(&c->__lk, self);
	struct pw *w = c->__q.__head;
	c->__q.__head = c->__q.__tail = 0;
	punlock(&c->__lk, self);
	while (w) {
		struct pw *next = w->next;   /* read before w may vanish */
		pw_grant(w);
		w = next;
	}
	return 0;
}
