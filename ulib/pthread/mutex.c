/*
 * POSIX mutexes: normal, recursive and error-checking, with trylock,
 * timedlock and priority ceilings (PTHREAD_PRIO_PROTECT). The lock word
 * works as <animart/sync.h>'s: 0 free, 1 held, 2 held with maybe waiters; an
 * uncontended lock and unlock are one compare-and-swap each, and a
 * contended unlock hands the mutex straight to the first waiter. A
 * normal mutex without a ceiling is just that (POSIX leaves relocking
 * and unlocking by a non-owner undefined there); recursive and
 * error-checking mutexes (and ceilings) keep their owner, so they report
 * EDEADLK and EPERM. Their lock word counts from MX_TYPED (free), so
 * the inline compare-and-swaps fail on them and land here.
 */
#include <errno.h>
#include "pwait.h"
#include "pt.h"
#include "pshared.h"
#include <animart/fence.h>

/* Lock and condition paths are measured in instructions (pbench): no
   frame pointer, as in ulib/rt/sync.c. */
#pragma GCC optimize("omit-frame-pointer")

int pthread_mutexattr_init(pthread_mutexattr_t *a)
{
	*a = (pthread_mutexattr_t){ 0 };
	return 0;
}

int pthread_mutexattr_destroy(pthread_mutexattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_mutexattr_settype(pthread_mutexattr_t *a, int type)
{
	if (type < PTHREAD_MUTEX_NORMAL || type > PTHREAD_MUTEX_ADAPTIVE_NP)
		return EINVAL;
	a->__type = type;
	return 0;
}

int pthread_mutexattr_gettype(const pthread_mutexattr_t *a, int *type)
{
	*type = a->__type;
	return 0;
}

int pthread_mutexattr_setprotocol(pthread_mutexattr_t *a, int protocol)
{
	if (protocol != PTHREAD_PRIO_NONE && protocol != PTHREAD_PRIO_PROTECT &&
	    protocol != PTHREAD_PRIO_INHERIT)
		return EINVAL;
	a->__protocol = protocol;
	return 0;
}

int pthread_mutexattr_getprotocol(const pthread_mutexattr_t *a, int *protocol)
{
	*protocol = a->__protocol;
	return 0;
}

int pthread_mutexattr_setprioceiling(pthread_mutexattr_t *a, int ceiling)
{
	if (ceiling < sched_get_priority_min(SCHED_FIFO) || ceiling > sched_get_priority_max(SCHED_FIFO))
		return EINVAL;
	a->__ceiling = ceiling;
	return 0;
}

/* Never set: SCHED_FIFO's lowest priority, as glibc (0 lies outside
   the range: a program that passes it back to setprioceiling fails). */
static int ceiling_of(const pthread_mutexattr_t *a)
{
	return a->__ceiling ? a->__ceiling : sched_get_priority_min(SCHED_FIFO);
}

int pthread_mutexattr_getprioceiling(const pthread_mutexattr_t *a, int *ceiling)
{
	*ceiling = ceiling_of(a);
	return 0;
}

int pthread_mutexattr_setpshared(pthread_mutexattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	a->__pshared = pshared;      /* works wherever the memory is shared */
	return 0;
}

int pthread_mutexattr_getpshared(const pthread_mutexattr_t *a, int *pshared)
{
	*pshared = a->__pshared;
	return 0;
}

int pthread_mutexattr_setrobust(pthread_mutexattr_t *a, int robust)
{
	if (robust != PTHREAD_MUTEX_STALLED && robust != PTHREAD_MUTEX_ROBUST)
		return EINVAL;
	a->__robust = robust;
	return 0;
}

int pthread_mutexattr_getrobust(const pthread_mutexattr_t *a, int *robust)
{
	*robust = a->__robust;
	return 0;
}

/* Robust mutexes (__robust): a thread that exits holding one does not
   leave it locked for ever. Its exit (robust_exit, at the bottom of its
   cleanup chain from its first robust lock) marks each it holds
   owner-dead and unlocks it; the next locker gets it with EOWNERDEAD.
   That locker calls pthread_mutex_consistent to go on as normal, or
   unlocks it without, which makes it not recoverable: every lock from
   then on, and every waiter, gets ENOTRECOVERABLE. */
#define RB_OK   1
#define RB_DEAD 2
#define RB_GONE 3

int pthread_mutex_consistent(pthread_mutex_t *m)
{
	if (m->__robust != RB_DEAD || m->__owner != thread_self())
		return EINVAL;
	m->__robust = RB_OK;
	return 0;
}

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	*m = (pthread_mutex_t){ 0 };
	if (a) {
		/* adaptive (glibc's) is a normal mutex here */
		m->__type = a->__type == PTHREAD_MUTEX_ADAPTIVE_NP ? PTHREAD_MUTEX_NORMAL : a->__type;
		m->__robust = a->__robust == PTHREAD_MUTEX_ROBUST ? RB_OK : 0;
		if (a->__protocol == PTHREAD_PRIO_PROTECT)
			m->__ceiling = ceiling_of(a) + 1;
		else if (a->__protocol == PTHREAD_PRIO_INHERIT)
			m->__ceiling = MX_INHERIT;
		if (psh_here(m, a->__pshared == PTHREAD_PROCESS_SHARED)) {   /* (no ceiling, not robust: pshared.c) */
			m->__pshared = 1;
			m->__ceiling = MX_PSHARED;
			m->__robust = 0;
		}
	}
	m->__state = mx_base(m);
	return 0;
}

static void robust_drop(pthread_mutex_t *m, struct thread *self);

/* EBUSY while held, but a robust mutex the caller holds, no one waiting,
   may be destroyed (0, as glibc, which never refuses a robust one):
   it leaves the caller's robust list first, so its exit does not touch
   the memory after. */
int pthread_mutex_destroy(pthread_mutex_t *m)
{
	int base = mx_base(m);
	struct thread *self = thread_self();
	if (m->__robust && base && m->__owner == self && m->__state == base + 1) {
		robust_drop(m, self);
		m->__owner = 0;
		m->__count = 0;
		m->__state = base;
	}
	return m->__state != base ? EBUSY : 0;
}

/* Ceiling: raise the caller before it contends (through the package:
   the first level above 0 gives fifo, tutor and naive their real-time
   band, ulib/rt/rt_band.c). */
static int raise_prio(pthread_mutex_t *m, struct thread *self)
{
	int old = self->prio;
	int level = m->__ceiling > 0 ? pt_level(1, m->__ceiling - 1) : 0;   /* a SCHED_FIFO priority */
	if (m->__ceiling > 0 && level > old)
		thread_set_prio(self, level);
	return old;
}

/* A caller whose own real-time priority is above a ceiling may not
   lock the mutex (POSIX, glibc: EINVAL); a condition wait's relock is
   not asked (its thread held the mutex before). */
static int above_ceiling(pthread_mutex_t *m, struct thread *self)
{
	struct pthread *pt = pt_of(self);
	int rt = pt->policy == SCHED_FIFO || pt->policy == SCHED_RR;
	return rt && pt->prio > m->__ceiling - 1;
}

/* The lock's slow path: queue and wait to be handed the mutex. */
static int lock_wait(pthread_mutex_t *m, struct thread *self, uint64_t deadline, int base,
		     int cancel)
{
	struct waiter w = { self, 0, 0 };
	plock(&m->__lk, self);
	if (__atomic_exchange_n(&m->__state, base + 2, __ATOMIC_ACQUIRE) == base) {
		punlock(&m->__lk, self);     /* freed meanwhile: ours */
		return 0;
	}
	pq_push(&m->__q, &w);
	/* Priority inheritance: the holder runs at least at our priority
	   until it unlocks (its unlock restores what it had when it locked;
	   it cannot unlock meanwhile without this lock: the state says a
	   waiter is here). One level only: a holder waiting on another
	   mutex does not pass the boost on. */
	struct thread *owner = m->__owner;
	if (m->__ceiling == MX_INHERIT && owner && owner->prio < self->prio)
		thread_set_prio(owner, self->prio);   /* moves it if it waits to run */
	punlock(&m->__lk, self);
	int r = pw_wait(&w, deadline, cancel, &m->__lk, &m->__q);
	if (r)
		punlock(&m->__lk, self);
	return r;
}

static void robust_exit(void *arg);
static void release(pthread_mutex_t *m, struct thread *self, int base);

/* The caller now holds robust m: on its list, and the list's exit
   handler at the bottom of its cleanup chain (once). */
static void robust_hold(pthread_mutex_t *m, struct thread *self)
{
	struct pthread *pt = pt_of(self);
	m->__rnext = pt->robust;
	pt->robust = m;
	if (!pt->robust_exit.__fn) {
		pt->robust_exit.__fn = robust_exit;
		pt->robust_exit.__arg = pt;
		__pt_cleanup_link(pt, &pt->robust_exit);
	}
}

static void robust_drop(pthread_mutex_t *m, struct thread *self)
{
	void **p = &pt_of(self)->robust;
	while (*p && *p != m)
		p = &((pthread_mutex_t *)*p)->__rnext;
	if (*p)
		*p = m->__rnext;
}

/* The exiting thread's robust mutexes: owner-dead, unlocked. */
static void robust_exit(void *arg)
{
	struct pthread *pt = arg;
	struct thread *self = thread_self();
	while (pt->robust) {
		pthread_mutex_t *m = pt->robust;
		pt->robust = m->__rnext;
		if (m->__robust != RB_GONE)
			m->__robust = RB_DEAD;
		release(m, self, mx_base(m));
	}
}

/* cancel: PW_ASYNC where an asynchronous cancel may end the wait (a
   caller's lock), 0 for a condition wait's relock. */
static int lock(pthread_mutex_t *m, uint64_t deadline, int try, int cancel)
{
	struct thread *self = thread_self();
	int base = mx_base(m);
	if (base && m->__ceiling == MX_PSHARED)     /* (a plain mutex: no look) */
		return psh_mutex_lock(m, deadline, try);
	if (m->__robust == RB_GONE)
		return ENOTRECOVERABLE;
	if (m->__type != PTHREAD_MUTEX_NORMAL && m->__owner == self)
		return mx_relock(m, try);
	if (m->__ceiling > 0 && (cancel || try) && above_ceiling(m, self))
		return EINVAL;
	int old = raise_prio(m, self), expect = base;
	if (!__atomic_compare_exchange_n(&m->__state, &expect, base + 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		int r = try ? EBUSY : lock_wait(m, self, deadline, base, cancel);
		if (r) {
			self->prio = old;
			if (r == ECANCELED)  /* asynchronous cancel while waiting */
				pcancel_act();
			return r;
		}
	}
	if (base) {
		m->__owner = self;
		m->__count = 1;
		m->__saved_prio = old;
		if (m->__robust) {
			if (m->__robust == RB_GONE) {    /* made so while we waited */
				release(m, self, base);
				return ENOTRECOVERABLE;
			}
			robust_hold(m, self);
			if (m->__robust == RB_DEAD)
				return EOWNERDEAD;          /* held: make it consistent */
		}
	}
	return 0;
}

int __pthread_mutex_lock_slow(pthread_mutex_t *m)
{
	if (__builtin_expect(__fence_hook != 0, 0))
		return pthread_mutex_lock(m);    /* the inline path skipped its CAS (det, det=par) */
	return lock(m, 0, 0, PW_ASYNC);
}

int pmutex_take_slow(pthread_mutex_t *m)
{
	return lock(m, 0, 0, 0);
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	FENCED(pthread_mutex_lock(m));
	int expect = 0;
	if (__atomic_compare_exchange_n(&m->__state, &expect, 1, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return 0;
	return lock(m, 0, 0, PW_ASYNC);
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	FENCED_SYNC(pthread_mutex_trylock(m));
	return lock(m, 0, 1, 0);
}

/* POSIX.1-2024: the deadline on `clock` (CLOCK_REALTIME or CLOCK_MONOTONIC). */
int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime)
{
	FENCED(pthread_mutex_clocklock(m, clock, abstime));
	int expect = 0;                  /* free: no need to look at the time */
	if (__atomic_compare_exchange_n(&m->__state, &expect, 1, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return 0;
	int64_t d = pdeadline(clock, abstime);
	return d < 0 ? EINVAL : lock(m, (uint64_t)d, 0, PW_ASYNC);
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	return pthread_mutex_clocklock(m, CLOCK_REALTIME, abstime);
}

/* Contended unlock: hand the mutex straight to the first waiter. */
static __attribute__((noinline)) void unlock_wake(pthread_mutex_t *m, struct thread *self,
						  int base)
{
	plock(&m->__lk, self);
	struct waiter *w = pq_pop(&m->__q);
	/* handed to w: base+2 while more may wait, else base+1 (its unlock
	   fast); nobody: free */
	__atomic_store_n(&m->__state, w ? base + 1 + (m->__q.__head != 0) : base, __ATOMIC_RELEASE);
	punlock_grant(&m->__lk, w, self);
}

/* Everything but a plain mutex's uncontended unlock. */
static int unlock_slow(pthread_mutex_t *m);
int __pthread_mutex_unlock_slow(pthread_mutex_t *m)
{
	if (__builtin_expect(__fence_hook != 0, 0)) {
		/* the inline path skipped its CAS (det, det=par): the turn,
		   quiet (serial det: fence_quiet) or through the hook */
		if (!fence_quiet())
			return pthread_mutex_unlock(m);
		int expect = 1;
		if (__atomic_compare_exchange_n(&m->__state, &expect, 0, 0, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return 0;
	}
	return unlock_slow(m);
}

static int unlock_slow(pthread_mutex_t *m)
{
	struct thread *self = thread_self();
	int base = mx_base(m);
	if (!base) {                     /* plain: waiters (2), or not locked (0) */
		/* Unlocking a free normal mutex is undefined; glibc and musl
		   return 0, and real code relies on it (a thread pool's
		   destroy unlocked one twice and took EPERM as its failure). */
		if (__atomic_load_n(&m->__state, __ATOMIC_RELAXED))
			unlock_wake(m, self, 0);
		return 0;
	}
	if (m->__ceiling == MX_PSHARED)
		return psh_mutex_unlock(m);
	if (m->__owner != self)
		return EPERM;
	if (m->__type == PTHREAD_MUTEX_RECURSIVE && --m->__count > 0)
		return 0;
	if (m->__robust) {
		robust_drop(m, self);
		if (m->__robust == RB_DEAD)
			m->__robust = RB_GONE;   /* unlocked without pthread_mutex_consistent */
	}
	release(m, self, base);
	return 0;
}

/* A typed mutex the caller holds becomes free, or goes to its first
   waiter; a raised priority comes down. */
static void release(pthread_mutex_t *m, struct thread *self, int base)
{
	int old = m->__saved_prio, expect = base + 1;
	m->__owner = 0;
	m->__count = 0;
	if (!__atomic_compare_exchange_n(&m->__state, &expect, base, 0, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		unlock_wake(m, self, base);
	if (m->__ceiling && old < self->prio) {
		self->prio = old;            /* back down: let higher ones run */
		thread_yield();
	}
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	FENCED_SYNC(pthread_mutex_unlock(m));
	int expect = 1;
	if (__atomic_compare_exchange_n(&m->__state, &expect, 0, 0, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return 0;
	return unlock_slow(m);
}

/* Only a PTHREAD_PRIO_PROTECT mutex has one (glibc: EINVAL for others). */
int pthread_mutex_getprioceiling(const pthread_mutex_t *m, int *ceiling)
{
	if (m->__ceiling <= 0)
		return EINVAL;
	*ceiling = m->__ceiling - 1;
	return 0;
}

/* Only a PTHREAD_PRIO_PROTECT mutex has a ceiling to change (as glibc):
   its kind, and so its lock word's base, stays what init made it. */
int pthread_mutex_setprioceiling(pthread_mutex_t *m, int ceiling, int *old)
{
	if (ceiling < sched_get_priority_min(SCHED_FIFO) || ceiling > sched_get_priority_max(SCHED_FIFO) ||
	    m->__ceiling <= 0)
		return EINVAL;
	int r = pthread_mutex_lock(m);
	if (r)
		return r;
	if (old)
		*old = m->__ceiling - 1;
	m->__ceiling = ceiling + 1;
	return pthread_mutex_unlock(m);
}
