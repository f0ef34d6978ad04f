/*
 * Synchronization built only on the thread interface (<animart/thread.h>): it
 * blocks and wakes threads through their own packages' routines, so it
 * works across packages (and across spaces sharing memory, when every
 * party can reach the waiters' descriptors).
 *
 * Waiters queue under a short `struct spin` (below); the uncontended mutex path is
 * one atomic instruction each way, with no syscall and no upcall.
 * All objects are valid when zero-filled (except sem/barrier counts).
 */
#ifndef ULIB_SYNC_H
#define ULIB_SYNC_H

#include <stdint.h>
#include <animart/thread.h>
#include <animart/spin.h>
#include <animart/waitq.h>

/* Waiter queues are guarded by the one crit-aware spin lock (<animart/spin.h>):
   with a plain spin lock, a time slice could move the holder to the back
   of its VP's queue and the VP's other threads would spin on the lock for
   a whole slice (gauss under fifo: 26% slower). */

/*
 * A mutex may have a priority ceiling (0: none): a thread holds it at
 * least at that priority, so no thread of a priority up to the ceiling
 * preempts it while it holds the mutex (packages with priorities: prio).
 * Set it before first use, with umutex_set_ceiling.
 */
struct mutex {
	volatile int state;         /* 0 free, 1 held, 2 held and maybe waiters
				       (from MX_CEIL with a ceiling) */
	int ceiling;                /* priority ceiling, 0 for none */
	int saved_prio;             /* the holder's priority before it took it */
	struct spin lock;
	struct waitq q;
};

struct cond {
	struct spin lock;
	struct waitq q;
};

struct sem {
	int count;
	struct spin lock;
	struct waitq q;
};

struct barrier {
	int n, arrived;
	uint64_t generation;
	struct spin lock;
	struct waitq q;
};

struct once {
	volatile int state;         /* 0 not run, 1 running, 2 done */
	struct mutex m;
	struct cond c;
};

void umutex_lock_slow(struct mutex *m);
void umutex_unlock_slow(struct mutex *m);

/* A mutex with a ceiling counts its states from MX_CEIL (free), so the
   inline paths below fail on it and the slow paths do the ceiling: a
   mutex without one pays nothing for the feature. */
#define MX_CEIL 4

/* Uncontended paths inline: one compare-and-swap each way. */
static inline void umutex_lock(struct mutex *m)
{
	int expect = 0;
	if (!__atomic_compare_exchange_n(&m->state, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		umutex_lock_slow(m);
}

static inline void umutex_unlock(struct mutex *m)
{
	int expect = 1;
	if (!__atomic_compare_exchange_n(&m->state, &expect, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		umutex_unlock_slow(m);
}

/* Give an unused, unlocked mutex a priority ceiling (0: none). */
static inline void umutex_set_ceiling(struct mutex *m, int prio)
{
	m->ceiling = prio;
	m->state = prio ? MX_CEIL : 0;
}

int umutex_trylock(struct mutex *m);

void ucond_wait(struct cond *c, struct mutex *m);
void ucond_signal(struct cond *c);
void ucond_broadcast(struct cond *c);

void usem_init(struct sem *s, int count);
void usem_wait(struct sem *s);
void usem_post(struct sem *s);

void ubarrier_init(struct barrier *b, int n);
/* Returns 1 in exactly one thread per round (the last to arrive). */
int ubarrier_wait(struct barrier *b);

void uonce(struct once *o, void (*fn)(void));

#endif
