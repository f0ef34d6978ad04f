/*
 * Process-shared mutexes, conditions, read-write locks, barriers and
 * semaphores (PTHREAD_PROCESS_SHARED, sem_init with pshared 1): objects
 * in memory several processes map (MAP_SHARED | MAP_ANONYMOUS before a
 * fork, a named semaphore: shared segments, ulib/libc/mshared.c; a
 * MAP_SHARED file mapping, shm_open's: kernel/fshare.c). Only there: an object init marks pshared elsewhere (psh_here) is a private
 * one, as no other process can see it.
 *
 * Why not the private objects' code: their waiter queues link nodes on
 * the waiters' stacks and wake a thread through its package, neither of
 * which another space can reach. Here each object waits on a 32-bit word
 * of its own with the kernel futex (SYS_futex_wait/wake), keyed by
 * (segment, offset) in a segment, by the one shared frame in a file
 * mapping (kernel/fkey.c), so the same key from every space: with
 * upcalls (fifo, prio) only the thread blocks, a classic VP (kthread,
 * naive) blocks whole (naive's, which others share, only once none of
 * them can run: vp_turns). The words are written by every process sharing
 * them, and nothing here follows a pointer read from them.
 *
 * A signal handler runs inside these waits on every package, and
 * pthread_cancel ends sem_wait and the condition waits (fwait). Not
 * here, unlike the private objects: priority ceilings and inheritance,
 * and robustness, are ignored for a process-shared mutex.
 */
#include <errno.h>
#include <semaphore.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/intr.h>
#include <animart/pkg.h>
#include <animart/xwait.h>
#include "pt.h"
#include "pwait.h"
#include "pshared.h"

/* t's priority for the kernel's futex wake, which takes the highest
   waiter first, whatever its process (FUTEX_PRIO): where the package
   orders waiters by it (thread_ops.wait_first: prio, and fifo, tutor
   and naive once their real-time band is on, ulib/rt/rt_band.c), its
   level (pt_level: 0 for SCHED_OTHER,
   the real-time priority 1..99 itself, raised by a ceiling it holds as
   Linux's PTHREAD_PRIO_PROTECT raises the real one), else 0, so the
   longest waiting goes first. */
_Static_assert(THREAD_PRIO_MAX <= 0xff, "a level fits FUTEX_PRIO's 8 bits");
static uint64_t wprio(struct thread *t)
{
	return t->ops->wait_first ? FUTEX_PRIO(t->prio & 0xff) : 0;
}

#define B MX_TYPED                   /* a pshared mutex's word: B free, B+1 held, B+2 maybe waiters */

/* Sleep while *w == v, until the deadline (ns since boot; 0: none):
   0 (look again), ETIMEDOUT, EINTR: a handler without SA_RESTART ran
   (`cancel` with PW_INTR_ANY: any handler), or ECANCELED: a cancel is
   due (`cancel` & PW_CANCEL: a cancellation point; the caller acts).
   The handlers due run here, inside the wait, as in the private
   objects' waits (psig_run).
   How a signal or a cancel reaches a thread asleep here: its park word
   says PARK_KWAIT meanwhile, and the kernel wait names it as its cut
   word (SYS_futex_wait_cut), so the thread_unblock that pthread_kill,
   the signal library's delivery (a signal of the process itself, an
   alarm, or one another process sent, on every package) and
   pthread_cancel already make moves it to RUN and cuts the wait short
   (SYS_wait_cut, ulib/rt/thread.c). No cut is lost: one before the
   thread set KWAIT leaves a permit, which the compare-and-swap meets
   (then it looks, and does not sleep); one after it finds the word
   moved on when the kernel reads it under its lock before sleeping, or
   the wait queued. The word is the thread's own, not the library's
   pending sets, because only a word the kernel reads at the wait's
   entry closes the window between the last look and the sleep. A
   classic VP's wait cut short for a signal from another process has it
   fetched and given to a thread (intr_waited), perhaps this one.
   async_hold keeps an upcall package from running the handler as it
   resumes the thread (rt_switch.c): the wait runs it, and so knows.
   A package that keeps its own time (det) would not see a thread asleep
   in the kernel as blocked: there it waits the package's way (pshown.c),
   which fwake reaches as well, and its deadline is that clock's. */
/* A classic VP (naive): its kernel wait would block it whole, and the
   threads queued on it with it, perhaps the very holder the wait is for
   (rwstress's process-shared storm on naive: two untimed waits held
   both VPs and the holder waited behind them for ever). While another
   thread can run here, the waiter looks between their turns instead,
   as a pipe's wait does (ulib/libc/pipe.c's vpwait): 1 once others ran
   or the word moved (look again), -ETIMEDOUT once the deadline passed,
   0 if none can run (then wait in the kernel). */
static long vp_turns(struct thread *t, volatile void *w, uint32_t v, uint64_t deadline)
{
	int (*other)(struct thread *) = t->ops->yield_other;
	if (!other || __atomic_load_n(&t->vpp->upcall_entry, __ATOMIC_RELAXED))
		return 0;
	if (deadline && now_ns() >= dl_boot(deadline))
		return -ETIMEDOUT;
	if (__atomic_load_n((volatile uint32_t *)w, __ATOMIC_ACQUIRE) != v || psig_due(t) ||
	    pcancel_pending())
		return 1;
	return other(t);
}

static int fwait(volatile void *w, uint32_t v, uint64_t deadline, int cancel)
{
	uint64_t rel = 0;
	int rt = (deadline & DL_REALTIME) != 0;
	struct thread *t = thread_self();
	int own = t && t->ops->own_time;     /* det: the package's wait (pshown.c), its clock */
	if (rt)                          /* a realtime time (<animart/clock.h>): the kernel's to convert */
		rel = deadline & ~DL_REALTIME;
	else if (deadline && !own) {
		uint64_t now = now_ns();
		if (now >= deadline)
			return ETIMEDOUT;
		rel = deadline - now;
	}
	if (!t)                          /* (no thread: a VP's own code) */
		return intr_waited(syscall3(rt ? SYS_futex_wait_rt : SYS_futex_wait, w, v, rel)) == -ETIMEDOUT
		       ? ETIMEDOUT : 0;
	long r = 0;
	int s = PARK_RUN, held = t->async_hold;      /* (held: in a handler inside another wait) */
	if (!held)
		t->async_hold = 1;
	if (own)
		r = psh_own_sleep(t, w, v, deadline, cancel);
	else if ((r = vp_turns(t, w, v, deadline)) != 0)
		r = r < 0 ? r : 0;
	else if (__atomic_compare_exchange_n(&t->park, &s, PARK_KWAIT, 0, __ATOMIC_SEQ_CST,
					     __ATOMIC_ACQUIRE)) {
		if (!((cancel & PW_CANCEL) && pcancel_pending()) && !psig_due(t))
			r = intr_waited(syscall6(SYS_futex_wait_cut, (long)w, v, (long)rel, (long)&t->park,
						 PARK_KWAIT, (long)(rt | wprio(t))));
		s = PARK_KWAIT;              /* (else a cut set RUN) */
		__atomic_compare_exchange_n(&t->park, &s, PARK_RUN, 0, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE);
	} else                           /* a permit: taken (thread_park_commit's reason) */
		__atomic_exchange_n(&t->park, PARK_RUN, __ATOMIC_SEQ_CST);
	if (!held)
		pw_release(t);
	thread_wait_refused(w, v, r);    /* (refused for MAXKOP_SPACE: yield first) */
	if ((cancel & PW_CANCEL) && pcancel_pending()) {
		if (psig_due(t))         /* a handler due runs before the cancel acts, as on Linux */
			psig_run(t);
		return ECANCELED;
	}
	if (psig_due(t) && (psig_run(t) & (cancel & PW_INTR_ANY ? SIGW_RAN : SIGW_INTR)))
		return EINTR;
	return r == -ETIMEDOUT ? ETIMEDOUT : 0;
}

static void fwake(volatile void *w, int n)
{
	ownw_wake(w, n);                 /* (waiters of a package with its own time: pshown.c) */
	syscall2(SYS_futex_wake, w, n);
}

/* The caller as an owner, distinct across processes: its space id and
   its thread (a syscall: a forked child has another id than the copy of
   any cache would say). */
static void *me(void)
{
	return (void *)((uint64_t)sys_getinfo(INFO_SPACE) << 48 | (uint64_t)thread_self());
}

int psh_mutex_lock(pthread_mutex_t *m, uint64_t deadline, int try)
{
	void *self = m->__type != PTHREAD_MUTEX_NORMAL ? me() : 0;
	if (self && m->__owner == self)
		return mx_relock(m, try);
	int c = B;
	if (!__atomic_compare_exchange_n(&m->__state, &c, B + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		if (try)
			return EBUSY;
		if (c != B + 2)
			c = __atomic_exchange_n(&m->__state, B + 2, __ATOMIC_ACQUIRE);
		while (c != B) {
			if (fwait(&m->__state, B + 2, deadline, 0) == ETIMEDOUT)
				return ETIMEDOUT;    /* (EINTR: a handler ran, it goes on) */
			c = __atomic_exchange_n(&m->__state, B + 2, __ATOMIC_ACQUIRE);
		}
	}
	m->__owner = self;
	m->__count = 1;
	return 0;
}

int psh_mutex_unlock(pthread_mutex_t *m)
{
	if (m->__type != PTHREAD_MUTEX_NORMAL) {
		if (m->__owner != me())
			return EPERM;
		if (m->__type == PTHREAD_MUTEX_RECURSIVE && --m->__count > 0)
			return 0;
		m->__owner = 0;
	}
	if (__atomic_exchange_n(&m->__state, B, __ATOMIC_RELEASE) == B + 2)
		fwake(&m->__state, 1);
	return 0;
}

/* A condition: __seq changes at every signal; a waiter sleeps while it
   has not. The mutex is released whole (a recursive one's count kept)
   and taken again. A handler runs inside the wait, which then goes on
   (as glibc's: no return without a signal, but for `how`'s PW_INTR,
   __cond_wait_intr's EINTR); a cancel (`how` a cancellation point)
   acts once the mutex is held again, for the cleanup handlers.
   __nwait counts the waiters inside (CW_COUNT); CW_WOKEN says a signal
   found some, CW_DESTROY that a pthread_cond_destroy waits for them to
   leave. POSIX lets a program destroy the condition, and reuse its
   memory, once a broadcast has woken its waiters, before they have
   returned (pthread_cond_destroy 2-1 of the public suite overwrites
   it with zeros: __seq back to the value a waiter kept, which then
   slept on for ever). So a waiter's last touch of the condition is the
   decrement of __nwait, and the destroy waits for it (as glibc's). */
#define CW_DESTROY 0x80000000u
#define CW_WOKEN   0x40000000u
#define CW_COUNT   0x3fffffffu

int psh_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, uint64_t deadline, int how)
{
	int count = 1, typed = m->__pshared ? m->__type != PTHREAD_MUTEX_NORMAL : mx_base(m);
	if (typed) {                     /* (a normal mutex keeps no owner) */
		if (m->__owner != (m->__pshared ? me() : (void *)thread_self()))
			return EPERM;
		count = m->__count;
		m->__count = 1;
	}
	uint32_t seq = __atomic_load_n(&c->__seq, __ATOMIC_ACQUIRE);
	unsigned z = CW_WOKEN;           /* the first in after all left: the old wake is over */
	if (!__atomic_compare_exchange_n(&c->__nwait, &z, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		__atomic_add_fetch(&c->__nwait, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(m);
	int r;
	do
		r = fwait(&c->__seq, seq, deadline, how);
	while ((r == 0 || (r == EINTR && !(how & PW_INTR))) &&
	       __atomic_load_n(&c->__seq, __ATOMIC_ACQUIRE) == seq);
	if (r == ETIMEDOUT && __atomic_load_n(&c->__seq, __ATOMIC_ACQUIRE) != seq)
		r = 0;                   /* signalled as the time ran out: take the signal */
	/* The last touch of c: a destroy may end, and c be reused, at once. */
	if (__atomic_sub_fetch(&c->__nwait, 1, __ATOMIC_SEQ_CST) == (CW_DESTROY | CW_WOKEN))
		fwake(&c->__nwait, 0x7fffffff);
	if (m->__pshared)
		psh_mutex_lock(m, 0, 0);
	else
		mutex_take(m);
	if (typed)
		m->__count = count;
	if (r == ECANCELED)
		pcancel_act();
	if (r == EINTR && !(how & PW_INTR))
		r = 0;                   /* signalled as a handler ran */
	return r;
}

void psh_cond_wake(pthread_cond_t *c, int all)
{
	__atomic_add_fetch(&c->__seq, 1, __ATOMIC_SEQ_CST);
	unsigned n = __atomic_load_n(&c->__nwait, __ATOMIC_SEQ_CST);
	if (n & CW_COUNT) {
		if (!(n & CW_WOKEN))
			__atomic_or_fetch(&c->__nwait, CW_WOKEN, __ATOMIC_SEQ_CST);
		fwake(&c->__seq, all ? 0x7fffffff : 1);
	}
}

/* 0 once no waiter is inside; EBUSY if waiters are there that no signal
   woke (they block: a private condition's answer); else wait for the
   woken ones to leave. */
int psh_cond_destroy(pthread_cond_t *c)
{
	for (;;) {
		unsigned n = __atomic_load_n(&c->__nwait, __ATOMIC_SEQ_CST);
		if (!(n & CW_COUNT))
			return 0;
		if (!(n & CW_WOKEN))
			return EBUSY;
		if (!(n & CW_DESTROY) && !__atomic_compare_exchange_n(&c->__nwait, &n, n | CW_DESTROY, 0,
								       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		fwait(&c->__nwait, n | CW_DESTROY, 0, 0);
	}
}

/* A read-write lock: __readers is the word, RW_WR while written, the
   count of readers else, RW_WAIT when someone sleeps on it; __writer
   the writer (me()), so that it gets EDEADLK rather than waiting for
   itself. Readers prevail (glibc's default). */
#define RW_WR   0x40000000
#define RW_WAIT 0x20000000
#define RW_CNT  0x1fffffff

int psh_rwlock_take(pthread_rwlock_t *l, int wr, int try, uint64_t deadline)
{
	volatile int *w = &l->__readers;
	void *self = me();
	if (l->__writer == self)
		return try ? EBUSY : EDEADLK;
	for (;;) {
		int v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
		int busy = wr ? (v & (RW_WR | RW_CNT)) != 0 : (v & RW_WR) || (v & RW_CNT) == RW_CNT;
		if (!busy) {
			if (!__atomic_compare_exchange_n(w, &v, wr ? v | RW_WR : v + 1, 0, __ATOMIC_ACQUIRE,
							 __ATOMIC_RELAXED))
				continue;
			if (wr)
				l->__writer = self;
			return 0;
		}
		if (try)
			return (v & RW_CNT) == RW_CNT ? EAGAIN : EBUSY;
		if (!(v & RW_WAIT) && !__atomic_compare_exchange_n(w, &v, v | RW_WAIT, 0, __ATOMIC_RELAXED,
								   __ATOMIC_RELAXED))
			continue;
		if (fwait(w, (uint32_t)(v | RW_WAIT), deadline, 0) == ETIMEDOUT)
			return ETIMEDOUT;
	}
}

int psh_rwlock_unlock(pthread_rwlock_t *l)
{
	volatile int *w = &l->__readers;
	int v = __atomic_load_n(w, __ATOMIC_RELAXED), n;
	if (v & RW_WR) {
		if (l->__writer != me())
			return EPERM;    /* written by another */
		l->__writer = 0;
	}
	do {
		if (v & RW_WR)
			n = 0;
		else if (v & RW_CNT)
			n = (v & RW_CNT) == 1 ? 0 : v - 1;
		else
			return EPERM;        /* not locked */
	} while (!__atomic_compare_exchange_n(w, &v, n, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	if ((v & RW_WAIT) && !n)
		fwake(w, 0x7fffffff);    /* every sleeper looks again */
	return 0;
}

/* A barrier: __round holds the round (high half) and the arrivals (low
   half) in one word, so the last arrival starts the next round in one
   store; the others sleep on the high half. */
int psh_barrier_wait(pthread_barrier_t *b)
{
	volatile uint64_t *w = (volatile uint64_t *)&b->__round;
	volatile uint32_t *gen = (volatile uint32_t *)w + 1;     /* (little-endian: the high half) */
	uint64_t v = __atomic_add_fetch(w, 1, __ATOMIC_ACQ_REL);
	uint32_t g = (uint32_t)(v >> 32);
	if ((uint32_t)v == b->__n) {
		__atomic_store_n(w, (uint64_t)(g + 1) << 32, __ATOMIC_RELEASE);
		fwake(gen, 0x7fffffff);
		return PTHREAD_BARRIER_SERIAL_THREAD;
	}
	while (__atomic_load_n(gen, __ATOMIC_ACQUIRE) == g)
		fwait(gen, g, 0, 0);
	return 0;
}

/* A semaphore: __count is the word; __nwait counts sleepers, so a post
   with none makes no system call. The hold (async_hold) spans the whole
   wait, not each fwait: a wait that looks again (vp_turns, a classic
   VP's) dropped it between looks, where an upcall or a switch ran a
   signal's handler outside the wait, and the loop then took the post
   the handler (or another thread right after it) made: sem_wait
   returned 0, not EINTR (psemintr). */
int psh_sem_wait(sem_t *s, int try, uint64_t deadline)
{
	struct thread *t = thread_self();
	int held = try || !t || t->async_hold, r;
	if (!held)
		t->async_hold = 1;
	for (;;) {
		int v = __atomic_load_n(&s->__count, __ATOMIC_ACQUIRE);
		if (v > 0) {
			if (__atomic_compare_exchange_n(&s->__count, &v, v - 1, 0, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED)) {
				r = 0;
				break;
			}
			continue;
		}
		if (try) {
			r = EAGAIN;
			break;
		}
		__atomic_add_fetch(&s->__nwait, 1, __ATOMIC_SEQ_CST);
		r = fwait(&s->__count, 0, deadline, 1);
		__atomic_sub_fetch(&s->__nwait, 1, __ATOMIC_SEQ_CST);
		if (r)
			break;
	}
	if (!held)
		pw_done(t);              /* (a handler due since the last look: now, after the answer) */
	if (r == ECANCELED)
		pcancel_act();           /* (a cancellation point: nothing held) */
	return r;
}

int psh_sem_post(sem_t *s)
{
	int v = __atomic_load_n(&s->__count, __ATOMIC_RELAXED);
	do {
		if (v == SEM_VALUE_MAX)
			return EOVERFLOW;
	} while (!__atomic_compare_exchange_n(&s->__count, &v, v + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	if (__atomic_load_n(&s->__nwait, __ATOMIC_SEQ_CST))
		fwake(&s->__count, 1);
	return 0;
}

/* A bare word of shared memory as a wait, for the objects built of
   words rather than of these (message queues, ulib/libc/mqueue.c):
   fwait's answers, fwake's wake-ups. */
int psh_word_wait(volatile uint32_t *w, uint32_t v, uint64_t deadline, int how)
{
	return fwait(w, v, deadline, how);
}

void psh_word_wake(volatile uint32_t *w, int n)
{
	fwake(w, n);
}
