/*
 * POSIX read-write locks. By default readers go first while no writer
 * holds the lock (glibc's default preference), so a thread may take a
 * read lock it already holds without deadlocking behind a waiting writer;
 * waiting writers are served when the last reader leaves. The kind
 * PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP (glibc's) admits no new
 * reader while a writer waits, so a steady stream of readers cannot
 * starve writers. An unlock releases the write hold if the caller has
 * it, else one read hold.
 */
#include <errno.h>
#include "pwait.h"
#include "pshared.h"
#include <animart/fence.h>

int pthread_rwlockattr_init(pthread_rwlockattr_t *a)
{
	*a = (pthread_rwlockattr_t){ 0 };
	return 0;
}

int pthread_rwlockattr_destroy(pthread_rwlockattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_rwlockattr_setpshared(pthread_rwlockattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	a->__pshared = pshared;
	return 0;
}

int pthread_rwlockattr_getpshared(const pthread_rwlockattr_t *a, int *pshared)
{
	*pshared = a->__pshared;
	return 0;
}

int pthread_rwlockattr_setkind_np(pthread_rwlockattr_t *a, int kind)
{
	if (kind < PTHREAD_RWLOCK_PREFER_READER_NP || kind > PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP)
		return EINVAL;
	a->__kind = kind;
	return 0;
}

int pthread_rwlockattr_getkind_np(const pthread_rwlockattr_t *a, int *kind)
{
	*kind = a->__kind;
	return 0;
}

int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{
	*l = (pthread_rwlock_t){ .__kind = a ? a->__kind : 0,
				 .__pshared = psh_here(l, a && a->__pshared == PTHREAD_PROCESS_SHARED) };
	return 0;
}

/* Must a reader wait? For a writer holding it; with writer preference
   also for a writer waiting. */
static int reader_waits(const pthread_rwlock_t *l)
{
	return l->__writer ||
	       (l->__kind == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP && l->__wq.__head);
}

/* Admit every waiting reader (lock held): the caller grants the list. */
static struct waiter *take_readers(pthread_rwlock_t *l)
{
	struct waiter *go = l->__rq.__head;
	l->__rq.__head = l->__rq.__tail = 0;
	for (struct waiter *w = go; w; w = w->next)
		l->__readers++;
	return go;
}

/* 0 even while held, as glibc's (POSIX leaves destroying a held lock
   undefined; EBUSY is a "may"): programs written against glibc destroy
   locks a thread that has exited still holds, and check for 0. */
int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	(void)l;
	return 0;
}

/* Take it for writing (wr) or reading; try: EBUSY instead of waiting. */
static int take(pthread_rwlock_t *l, int wr, int try, uint64_t deadline)
{
	if (l->__pshared)
		return psh_rwlock_take(l, wr, try, deadline);
	struct thread *self = thread_self();
	plock(&l->__lk, self);
	if (l->__writer == self) {           /* the try forms: EBUSY, as POSIX lists */
		punlock(&l->__lk, self);
		return try ? EBUSY : EDEADLK;
	}
	if (wr ? !l->__writer && !l->__readers : !reader_waits(l)) {
		if (wr)
			l->__writer = self;
		else
			l->__readers++;
		punlock(&l->__lk, self);
		return 0;
	}
	if (try) {
		punlock(&l->__lk, self);
		return EBUSY;
	}
	struct waiter w = { self, 0, 0 };
	struct __pq *q = wr ? &l->__wq : &l->__rq;
	pq_push(q, &w);
	punlock(&l->__lk, self);
	int r = pw_wait(&w, deadline, PW_ASYNC, &l->__lk, q);
	if (!r)
		return 0;                /* granted: the granter counted us in */
	/* Timed out or cancelled, off the queue. A writer that gave up may
	   have been all that kept waiting readers out (writer preference). */
	struct waiter *go = wr && !reader_waits(l) ? take_readers(l) : 0;
	punlock_grant_all(&l->__lk, go, self);
	if (r == ECANCELED)              /* asynchronous cancel while waiting */
		pcancel_act();
	return r;
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	FENCED(pthread_rwlock_rdlock(l));
	return take(l, 0, 0, 0);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	FENCED_SYNC(pthread_rwlock_tryrdlock(l));
	return take(l, 0, 1, 0);
}

/* The timed forms (POSIX.1-2024's clock ones: CLOCK_REALTIME or
   CLOCK_MONOTONIC). The clock and the time's tv_nsec are checked first,
   free lock or not, and before EDEADLK, as glibc's do (POSIX lets a
   lock taken at once skip the check; glibc chose not to, and programs
   tested against it see EINVAL). The deadline itself (a clock read) is
   made only if the lock is busy. */
static int take_by(pthread_rwlock_t *l, int wr, clockid_t clock, const struct timespec *abstime)
{
	if ((clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) || !abstime ||
	    abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L)
		return EINVAL;
	int r = take(l, wr, 1, 0);
	int64_t d;
	if (r != EBUSY)
		return r;
	return (d = pdeadline(clock, abstime)) < 0 ? EINVAL : take(l, wr, 0, (uint64_t)d);
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	FENCED(pthread_rwlock_timedrdlock(l, abstime));
	return take_by(l, 0, CLOCK_REALTIME, abstime);
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime)
{
	FENCED(pthread_rwlock_clockrdlock(l, clock, abstime));
	return take_by(l, 0, clock, abstime);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	FENCED(pthread_rwlock_wrlock(l));
	return take(l, 1, 0, 0);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	FENCED_SYNC(pthread_rwlock_trywrlock(l));
	return take(l, 1, 1, 0);
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	FENCED(pthread_rwlock_timedwrlock(l, abstime));
	return take_by(l, 1, CLOCK_REALTIME, abstime);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime)
{
	FENCED(pthread_rwlock_clockwrlock(l, clock, abstime));
	return take_by(l, 1, clock, abstime);
}

int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	FENCED_SYNC(pthread_rwlock_unlock(l));
	if (l->__pshared)
		return psh_rwlock_unlock(l);
	struct thread *self = thread_self();
	struct waiter *go = 0;
	plock(&l->__lk, self);
	if (l->__writer == self)
		l->__writer = 0;
	else if (l->__readers > 0)
		l->__readers--;
	else {
		punlock(&l->__lk, self);
		return EPERM;
	}
	if (!l->__writer && !l->__readers) {
		if ((go = pq_pop(&l->__wq))) {
			l->__writer = go->t;     /* one writer */
			go->next = 0;
		} else                       /* or every reader */
			go = take_readers(l);
	}
	punlock_grant_all(&l->__lk, go, self);
	return 0;
}
