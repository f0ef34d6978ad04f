/*
 * The POSIX layer's own waiting (ulib/pthread/): the runtime's waiter
 * queues (<animart/waitq.h>) with deadlines and cancellation, on
 * thread_block_until (<animart/thread.h>). A waker takes a waiter off
 * the queue under the object's lock, then grants it, so a waiter that
 * times out finds itself either still queued (it leaves) or granted (it
 * keeps what it was given). Internal.
 */
#ifndef POSIX_PWAIT_H
#define POSIX_PWAIT_H

#include <errno.h>
#include <stdint.h>
#define __PTHREAD_NO_INLINE        /* the library defines the real ones */
#include <pthread.h>
#include <animart/thread.h>
#include <animart/spin.h>
#include <animart/waitq.h>

/* struct __pq of <pthread.h> is a struct waitq (<animart/waitq.h>) */
_Static_assert(sizeof(struct __pq) == sizeof(struct waitq), "struct __pq is a waitq");
static inline struct waitq *pq_wq(struct __pq *q) { return (struct waitq *)q; }
static inline struct waiter **pq_head(struct __pq *q) { return &pq_wq(q)->head; }

/* The caller's node goes on q (the caller is w->t, holding q's lock):
   from here to the end of its wait, thread_async_hook leaves the thread
   alone (struct thread.async_hold): ended there, it would leave its node,
   on its stack, on the queue. */
static inline void pq_push(struct __pq *q, struct waiter *w)
{
	w->t->async_hold = 1;
	wq_push(pq_wq(q), w);
}

static inline struct waiter *pq_pop(struct __pq *q)
{
	return wq_pop(pq_wq(q));
}

/* A handler waits for the caller (struct thread.sigpend, set by
   pthread_kill): wait loops look after every wake-up that did not end
   them, and once more at their end. */
static inline int psig_due(struct thread *self)
{
	/* One testb of sigpend's low byte (x86 is little-endian) and the
	   branch on its flags: GCC loads a volatile into a register first
	   and tests that, a third instruction on every wait */
	_Static_assert(SIGPEND_WAITING < 0x100, "sigpend's low byte");
	int due;
	__asm__ volatile("testb %2, %1" : "=@ccnz"(due) : "m"(*(volatile uint8_t *)&self->sigpend),
			 "i"(SIGPEND_WAITING));
	return __builtin_expect(due, 0);
}

/* Run the handlers waiting for the caller, inside its wait (or just at
   its end); SIGW_* of what ran (0 if nothing could: all blocked). */
int psig_run(struct thread *self);

/* The caller's wait is over and its node off every queue: its hold
   ends (pw_release, for every wait that set async_hold). An
   asynchronous cancel held back meanwhile gets its look now: a kick of
   our own VP, whose upcall asks thread_async_hook again. And (pw_done)
   a signal that came with the wake-up runs its handler now, not at
   some later upcall: the program sees it during the wait. (Two tests
   on the fast path: a load and a branch more than without signals.) */
void pw_retry(struct thread *self);
static inline void pw_release(struct thread *self)
{
	if (__builtin_expect(__atomic_exchange_n(&self->async_hold, 0, __ATOMIC_RELAXED) == 2, 0))
		pw_retry(self);
}
static inline void pw_done(struct thread *self)
{
	pw_release(self);
	if (psig_due(self))
		psig_run(self);
}

/* A waker's window: from taking waiters off a queue (its lock held) to
   granting them, the waker must not be ended (an asynchronous cancel:
   thread_async_hook is not asked while crit > 0), or the waiters it took
   would wait for ever. punlock_hold drops the lock but keeps the crit
   count plock raised; pcrit_drop, once the grants are done, drops that
   as punlock would have (same instructions, later). */
static inline void punlock_hold(volatile int *lk)
{
	__atomic_store_n(&((struct spin *)lk)->locked, 0, __ATOMIC_RELEASE);
}
static inline void pcrit_drop(struct thread *self)
{
	if (self && --self->crit == 0 && self->yield_due)
		spin_yield_due(self);
}

static inline void pw_grant(struct waiter *w)
{
	wq_grant(w);
}

/* The waker's end of a hand-over, after taking waiters off a queue under
   lk (plocked by self): drop lk but not the crit count, grant, then drop
   that (punlock_hold). One waiter w (0: none) ... */
static inline void punlock_grant(volatile int *lk, struct waiter *w, struct thread *self)
{
	punlock_hold(lk);
	if (w)
		pw_grant(w);
	pcrit_drop(self);
}

/* ... or a whole list of them, linked by next and 0-terminated. */
static inline void punlock_grant_all(volatile int *lk, struct waiter *w, struct thread *self)
{
	punlock_hold(lk);
	while (w) {
		struct waiter *next = w->next;   /* read before w may vanish */
		pw_grant(w);
		w = next;
	}
	pcrit_drop(self);
}

/* Wait until w is granted, the deadline (ns since boot; 0: none) passes,
   or the thread is cancelled: `cancel` 1 at a cancellation point (any
   cancel due), PW_ASYNC where only an asynchronous cancel may act (a
   mutex or rwlock wait, which is no cancellation point), 0 never.
   Signal handlers for the thread run inside the wait, which then goes
   on; with PW_INTR or'ed into `cancel` (sem_wait), a handler without
   SA_RESTART ends it with EINTR, as on Linux.
   0: granted (lock not held); ETIMEDOUT, ECANCELED or EINTR: w is off
   the queue and `lk` is HELD, for the caller to fix its object's state
   (and, on ECANCELED, to act on the cancel: pcancel_act). */
#define PW_ASYNC  2
#define PW_CANCEL 3              /* `cancel`'s cancellation part */
#define PW_INTR   4
#define PW_INTR_ANY 8            /* with PW_INTR: EINTR after an SA_RESTART handler too (select, poll) */
/* With PW_INTR: a grant that comes after a handler asked for EINTR (the
   handler ran inside the wait, its node still queued, and a post it
   caused took the node) ends the wait as PW_GIVEN, lk held, the grant
   the caller's to pass on: on Linux the wait gave up before the
   handler ran, and the post found no waiter (sem_wait). */
#define PW_INTR_GIVE 16
#define PW_GIVEN (-1)
extern volatile int pcancel_any;
int pw_wait_slow(struct waiter *w, uint64_t deadline, int cancel, volatile int *lk, struct __pq *q);
void pw_gave_up(struct thread *self);   /* handlers due run at the caller's punlock */
int __cond_wait_intr(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime, int intr);

/* An object's lock holds its holder's fork generation (thread_fork_gen),
   not 1. A fork may copy an object whose lock another thread holds for
   the few instructions it queues or wakes (on another CPU, or a kthread
   VP the kernel preempted there): in the child no thread will ever let
   it go, and the child's lock, unlock or wait on the object spun for
   good (test_forkwake: a kthread-2 child in spin_wait_while, 1 run in 8). A
   lock of an older generation is such a copy's: the exchange that finds
   it has taken it over. What its holder left half done is its own node
   on the queue, which wq_pop passes over (thread_lives). */
static inline void plock(volatile int *lk, struct thread *self)
{
	spin_lock_tag((struct spin *)lk, self, thread_fork_gen);
}
static inline void punlock(volatile int *lk, struct thread *self)
{
	spin_unlock_by((struct spin *)lk, self);
}

/* The common case inline: no deadline, and no pthread_cancel ever.
   A wake-up without the grant is the rare case: only then look for a
   cancel or a signal (the slow path handles both). */
static inline int pw_wait(struct waiter *w, uint64_t deadline, int cancel, volatile int *lk,
			  struct __pq *q)
{
	if (deadline || ((cancel & PW_CANCEL) && pcancel_any))
		return pw_wait_slow(w, deadline, cancel, lk, q);
	while (!__atomic_load_n(&w->granted, __ATOMIC_ACQUIRE)) {
		thread_block();
		if (__atomic_load_n(&w->granted, __ATOMIC_ACQUIRE))
			break;
		if (((cancel & PW_CANCEL) && pcancel_any) || psig_due(w->t))
			return pw_wait_slow(w, deadline, cancel, lk, q);
	}
	pw_done(w->t);
	return 0;
}

/* The lock word's base (<pthread.h>'s __PTHREAD_MX_TYPED): 0 for a
   plain mutex (normal, no ceiling), which keeps no owner. */
#define MX_TYPED __PTHREAD_MX_TYPED
#define MX_INHERIT (-1)          /* __ceiling of a PTHREAD_PRIO_INHERIT mutex */
#define MX_PSHARED (-2)          /* __ceiling of a process-shared one (pshared.c): typed, no ceiling */
static inline int mx_base(const pthread_mutex_t *m)
{
	return m->__type | m->__ceiling | m->__robust ? MX_TYPED : 0;
}

/* A lock of a mutex the caller owns already (not a normal one): an
   error check's error, or one more count of a recursive one. */
static inline int mx_relock(pthread_mutex_t *m, int try)
{
	if (m->__type == PTHREAD_MUTEX_ERRORCHECK)
		return try ? EBUSY : EDEADLK;
	if (m->__count == 0x7fffffff)
		return EAGAIN;
	m->__count++;
	return 0;
}

/* A held mutex's unlock and a lock, for a condition wait: <pthread.h>'s
   inline paths (not visible here: __PTHREAD_NO_INLINE). */
static inline void mutex_release(pthread_mutex_t *m)
{
	int e = 1;
	if (!__atomic_compare_exchange_n(&m->__state, &e, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		__pthread_mutex_unlock_slow(m);
}

/* (Not asynchronously cancellable: a cancelled condition wait acts
   only once it holds the mutex again.) */
int pmutex_take_slow(pthread_mutex_t *m);
static inline void mutex_take(pthread_mutex_t *m)
{
	int e = 0;
	if (!__atomic_compare_exchange_n(&m->__state, &e, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		pmutex_take_slow(m);
}

/* An absolute time on `clock` as a deadline on the boot clock (never 0),
   or, for a CLOCK_REALTIME time still ahead, that time tagged DL_REALTIME
   (<animart/clock.h>), which thread_block_until and fwait follow if the
   clock is set; -EINVAL for a malformed time. */
int64_t pdeadline(clockid_t clock, const struct timespec *abstime);

/* The POSIX layer's cancellation state (pthread.c): whether the caller
   has a cancel to act on now (one load until any pthread_cancel). */
int pcancel_check(void);
static inline __attribute__((always_inline)) int pcancel_pending(void)
{
	/* One compare with memory (gcc loads a volatile into a register
	   first, then tests it: an instruction more on every cancellation
	   point, counted by pbench). */
	__asm__ goto("cmpl $0, pcancel_any(%%rip)\n\tjne %l[some]" : : : "cc" : some);
	return 0;
some:
	return pcancel_check();
}
/* ... and whether that cancel is asynchronous (acts outside the
   cancellation points). */
int pcancel_check_async(void);
__attribute__((noreturn)) void pcancel_act(void);
/* A cancellation point's check as the call begins (POSIX XSH 2.9.5.2):
   a cancel pending acts here, before the call does anything. */
static inline void pcancel_point(void)
{
	if (pcancel_pending())
		pcancel_act();
}

#endif
