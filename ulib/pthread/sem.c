/* POSIX unnamed semaphores (<semaphore.h>): a count and a queue; a post
   with a waiter hands its unit straight to it. Waits are cancellation
   points. Errors: -1 and errno. */
#include <errno.h>
#include <semaphore.h>
#include "pwait.h"
#include "pshared.h"
#include <animart/fence.h>

static int fail(int e)
{
	errno = e;
	return -1;
}

int sem_init(sem_t *s, int pshared, unsigned value)
{
	if (value > SEM_VALUE_MAX)
		return fail(EINVAL);
	*s = (sem_t){ .__count = (int)value, .__pshared = psh_here(s, pshared != 0) };   /* (pshared.c) */
	return 0;
}

int sem_destroy(sem_t *s)
{
	return s->__head ? fail(EBUSY) : 0;
}

static int wait(sem_t *s, int try, uint64_t deadline)
{
	struct thread *self = thread_self();
	if (!try && pcancel_pending())
		pcancel_act();
	if (s->__pshared) {              /* (cancelled inside too: pshared.c) */
		int r = psh_sem_wait(s, try, deadline);
		return r ? fail(r) : 0;
	}
	plock(&s->__lk, self);
	if (s->__count > 0) {
		s->__count--;
		punlock(&s->__lk, self);
		return 0;
	}
	if (try) {
		punlock(&s->__lk, self);
		return fail(EAGAIN);
	}
	struct waiter w = { self, 0, 0 };
	struct __pq *q = (struct __pq *)&s->__head;
	pq_push(q, &w);
	punlock(&s->__lk, self);
	int r = pw_wait(&w, deadline, 1 | PW_INTR | PW_INTR_GIVE, &s->__lk, q);   /* EINTR: a handler ran */
	if (!r)
		return 0;
	if (r == PW_GIVEN) {             /* a post after the handler: not ours, pass it on */
		struct waiter *next = pq_pop(q);
		if (!next)
			s->__count++;
		punlock_grant(&s->__lk, next, self);
		return fail(EINTR);
	}
	punlock(&s->__lk, self);
	if (r == ECANCELED)
		pcancel_act();
	return fail(r);
}

int sem_wait(sem_t *s)
{
	FENCED(sem_wait(s));
	return wait(s, 0, 0);
}

int sem_trywait(sem_t *s)
{
	FENCED(sem_trywait(s));
	return wait(s, 1, 0);
}

/* POSIX.1-2024: the deadline on `clock` (CLOCK_REALTIME or CLOCK_MONOTONIC). */
int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *abstime)
{
	FENCED(sem_clockwait(s, clock, abstime));
	if (pcancel_pending())           /* a cancellation point even when it need not wait */
		pcancel_act();
	if (wait(s, 1, 0) == 0)
		return 0;
	int64_t d = pdeadline(clock, abstime);
	return d < 0 ? fail(EINVAL) : wait(s, 0, (uint64_t)d);
}

int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
	FENCED(sem_timedwait(s, abstime));
	return sem_clockwait(s, CLOCK_REALTIME, abstime);
}

/* A post is a turn on det (FENCED_SYNC: det_fence), so a thread that
   loops posting while another sleeps lets it run. */
int sem_post(sem_t *s)
{
	FENCED_SYNC(sem_post(s));
	if (s->__pshared) {
		int r = psh_sem_post(s);
		return r ? fail(r) : 0;
	}
	struct thread *self = thread_self();
	plock(&s->__lk, self);
	struct waiter *w = pq_pop((struct __pq *)&s->__head);
	if (!w && s->__count == SEM_VALUE_MAX) {
		punlock(&s->__lk, self);
		return fail(EOVERFLOW);
	}
	if (!w)
		s->__count++;
	punlock_grant(&s->__lk, w, self);
	return 0;
}

int sem_getvalue(sem_t *s, int *value)
{
	*value = __atomic_load_n(&s->__count, __ATOMIC_RELAXED);
	return 0;
}
