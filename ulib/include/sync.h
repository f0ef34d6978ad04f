/*
 * Synchronization built only on the thread interface (<thread.h>): it
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
#include <thread.h>

struct waiter {
	struct thread *t;
	volatile int granted;
	struct waiter *next;
};

struct waitq {
	struct waiter *head, *tail;
};

/*
 * A spin lock for short critical sections that cooperates with the
 * preemption warning: while a thread holds one (or is trying to), its
 * package does not give up the VP on a warning; it marks the warning due,
 * and spin_unlock yields the VP (honoring the warning) once the last
 * spin lock is released. So a warned VP is not preempted holding a lock
 * its peers spin on — Psyche's two-minute warning. A package's time slice
 * (fifo's) likewise leaves a holder where it is. The objects below guard
 * their waiter queues with one: with a plain spin lock, a slice could move
 * the holder to the back of its VP's queue and the VP's other threads
 * would spin on the lock for a whole slice (gauss under fifo: 26% slower).
 */
struct spin {
	volatile int locked;
};

/* The spin operations of thread t (the caller; 0 if it is no thread). */
static inline void spin_lock_by(struct spin *l, struct thread *t)
{
	if (t)
		t->crit++;              /* before taking it: no unguarded window */
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			__asm__ volatile("pause");
}

void spin_yield_due(struct thread *t);

static inline void spin_unlock_by(struct spin *l, struct thread *t)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	if (t && --t->crit == 0 && t->yield_due)
		spin_yield_due(t);
}

static inline void spin_lock(struct spin *l)
{
	spin_lock_by(l, thread_self());
}

static inline void spin_unlock(struct spin *l)
{
	spin_unlock_by(l, thread_self());
}

struct mutex {
	volatile int state;         /* 0 free, 1 held, 2 held and maybe waiters */
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

void mutex_lock_wait(struct mutex *m);
void mutex_unlock_wake(struct mutex *m);

/* Uncontended paths inline: one compare-and-swap each way. */
static inline void mutex_lock(struct mutex *m)
{
	int expect = 0;
	if (!__atomic_compare_exchange_n(&m->state, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		mutex_lock_wait(m);
}

static inline void mutex_unlock(struct mutex *m)
{
	int expect = 1;
	if (!__atomic_compare_exchange_n(&m->state, &expect, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		mutex_unlock_wake(m);
}

int mutex_trylock(struct mutex *m);

void cond_wait(struct cond *c, struct mutex *m);
void cond_signal(struct cond *c);
void cond_broadcast(struct cond *c);

void sem_init(struct sem *s, int count);
void sem_wait(struct sem *s);
void sem_post(struct sem *s);

void barrier_init(struct barrier *b, int n);
/* Returns 1 in exactly one thread per round (the last to arrive). */
int barrier_wait(struct barrier *b);

void once(struct once *o, void (*fn)(void));

#endif
