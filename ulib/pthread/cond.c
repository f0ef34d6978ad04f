/*
 * POSIX condition variables, with a clock attribute for timedwait.
 * A waiter queues on the condition before it releases the mutex, so a
 * signal sent after the release finds it; the signaller takes it off the
 * queue and grants it. Waits are cancellation points: a cancelled waiter
 * re-takes the mutex, as POSIX wants, before its cleanup handlers run.
 */
#include <errno.h>
#include "pwait.h"
#include "pshared.h"
#include <animart/fence.h>

/* Measured in instructions (pbench): no frame pointer, as in ulib/rt/sync.c. */
#pragma GCC optimize("omit-frame-pointer")

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
	*c = (pthread_cond_t){ .__clock = a ? a->__clock : CLOCK_REALTIME,
			       .__pshared = psh_here(c, a && a->__pshared == PTHREAD_PROCESS_SHARED) };
	return 0;
}

int pthread_cond_destroy(pthread_cond_t *c)
{
	if (c->__q.__head)
		return EBUSY;
	return c->__pshared ? psh_cond_destroy(c) : 0;   /* (its woken waiters may be inside) */
}

/* The end of a wait that may time out or be cancelled: w is queued and
   the mutex released. `count`: a typed mutex's lock count to restore;
   `how`: pw_wait_slow's `cancel` (1: a cancellation point; | PW_INTR:
   a handler ends it with EINTR). */
static __attribute__((noinline)) int wait_rest(pthread_cond_t *c, pthread_mutex_t *m, struct waiter *w,
						uint64_t deadline, int count, int how)
{
	int r = pw_wait_slow(w, deadline, how, &c->__lk, &c->__q);
	if (r)
		punlock(&c->__lk, w->t);
	mutex_take(m);
	if (count)
		m->__count = count;
	if (r == ECANCELED)
		pcancel_act();
	return r;
}

/* Any wait: a typed mutex (released whole, EPERM if not ours), a
   deadline, cancellation, EINTR if `how` asks. */
static int wait(pthread_cond_t *c, pthread_mutex_t *m, uint64_t deadline, int how)
{
	FENCED(wait(c, m, deadline, how));     /* (det=par sets pcancel_any: every wait comes here) */
	struct thread *self = thread_self();
	int count = 0;
	if (mx_base(m) && !m->__pshared && m->__owner != self)
		return EPERM;                /* (a normal mutex keeps no owner) */
	if (pcancel_pending())           /* before the count changes: the cleanup */
		pcancel_act();               /* handlers get the mutex as it was held */
	if (c->__pshared)                /* (cancelled inside too: pshared.c) */
		return psh_cond_wait(c, m, deadline, how);
	if (mx_base(m)) {
		count = m->__count;      /* a recursive mutex is released whole */
		m->__count = 1;
	}
	struct waiter w = { self, 0, 0 };
	plock(&c->__lk, self);
	pq_push(&c->__q, &w);
	punlock(&c->__lk, self);
	mutex_release(m);
	return wait_rest(c, m, &w, deadline, count, how);
}

/* The common case inline: a plain mutex (held: its word is 1 or 2) and
   no pthread_cancel yet in the program. A cancel that comes during the
   wait sets pcancel_any before it unblocks us, so we look at it only
   when woken without a grant. */
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (__builtin_expect(m->__state >= MX_TYPED || pcancel_any, 0))
		return wait(c, m, 0, 1);
	struct thread *self = thread_self();
	struct waiter w = { self, 0, 0 };
	plock(&c->__lk, self);
	pq_push(&c->__q, &w);
	punlock(&c->__lk, self);
	mutex_release(m);
	while (!__atomic_load_n(&w.granted, __ATOMIC_ACQUIRE)) {
		thread_block();
		/* woken without the grant: a cancel, or a signal whose
		   handler runs inside the wait (the slow path does both) */
		if (!__atomic_load_n(&w.granted, __ATOMIC_ACQUIRE) && (pcancel_any || psig_due(self)))
			return wait_rest(c, m, &w, 0, 0, 1);
	}
	pw_done(self);
	mutex_take(m);
	return 0;
}

/* For the library's own waits that a signal handler may end as a system
   call would be (pipes: EINTR unless SA_RESTART; select and poll:
   EINTR always): pthread_cond_timedwait (abstime 0: none) with `intr`
   PW_INTR or PW_INTR | PW_INTR_ANY. */
int __cond_wait_intr(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime, int intr)
{
	int64_t d = abstime ? pdeadline(c->__clock, abstime) : 0;
	return d < 0 ? EINVAL : wait(c, m, (uint64_t)d, 1 | intr);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
	int64_t d = pdeadline(c->__clock, abstime);
	return d < 0 ? EINVAL : wait(c, m, (uint64_t)d, 1);
}

/* POSIX.1-2024: the deadline on `clock`, whatever the condition's own. */
int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
			   const struct timespec *abstime)
{
	int64_t d = pdeadline(clock, abstime);
	return d < 0 ? EINVAL : wait(c, m, (uint64_t)d, 1);
}

int pthread_cond_signal(pthread_cond_t *c)
{
	FENCED_SYNC(pthread_cond_signal(c));
	struct thread *self = thread_self();
	plock(&c->__lk, self);
	struct waiter *w = pq_pop(&c->__q);
	/* punlock_grant, with a process-shared condition's waiters (they
	   sleep on its word: pshared.c) woken when none waits here. One
	   used with a plain private mutex may have waiters here too (the
	   inline wait does not look at the condition). On the grant's own
	   branch: a private condition pays nothing for it. */
	punlock_hold(&c->__lk);
	if (w)
		pw_grant(w);
	else if (c->__pshared)
		psh_cond_wake(c, 0);
	pcrit_drop(self);
	return 0;
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	FENCED_SYNC(pthread_cond_broadcast(c));
	if (c->__pshared)
		psh_cond_wake(c, 1);     /* (and any waiters here: signal's comment) */
	if (!__atomic_load_n(&c->__q.__head, __ATOMIC_ACQUIRE))
		return 0;
	struct thread *self = thread_self();
	plock(&c->__lk, self);
	struct waiter *w = c->__q.__head;
	c->__q.__head = c->__q.__tail = 0;
	punlock_grant_all(&c->__lk, w, self);
	return 0;
}
