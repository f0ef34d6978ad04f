/*
 * The one user-level spin lock, for every package and for ulib itself.
 *
 * Test-and-test-and-set. It cooperates with the preemption warning: while
 * a thread holds one (or is trying to), its `crit` count is nonzero, so its
 * package does not give up the VP on a warning nor switch the thread out
 * on a time slice or a user-level preemption; it marks the switch due
 * (`yield_due`) and spin_unlock does it once the last spin lock is
 * released. So a warned VP is not preempted holding a lock its peers spin
 * on: Psyche's two-minute warning.
 *
 * Code that runs with software interrupts off (a package's scheduler, the
 * VP runtime's switch paths, an upcall handler) is a critical section
 * already and passes no thread: spin_lock_by(l, 0). So do ulib's own
 * locks (stdout, malloc's central lists): they also serve programs that
 * drive the VP page by hand, whose current_thread is whatever they put
 * there (progs/tests/warn.c, badvp.c), not a struct thread. Where such a
 * lock is taken with software interrupts on (stdout's), spin_owner()
 * names the caller's thread when a package runs the program's threads,
 * so the holder is not switched out while it holds it.
 *
 * A waiter on a classic VP (no upcalls, so no warnings) that has spun a
 * while gives up its processor (SYS_yield): the holder may be a VP the
 * kernel preempted, waiting for this very CPU. A waiter thread on an
 * upcall VP that has spun longer yields its thread: the holder may have
 * blocked in the kernel (a late page) and sit in a run queue (spin.c).
 * Zero-filled memory is an unlocked lock.
 */
#ifndef ULIB_SPIN_H
#define ULIB_SPIN_H

#include <animart/thread.h>

struct spin {
	volatile int locked;
};

#define SPIN_INIT { 0 }

void spin_wait_while(struct spin *l, int v);   /* the contended path (spin.c) */
void spin_yield_due(struct thread *t);    /* a switch deferred by crit */
void spin_defer_intr(struct thread *t);   /* an interrupt's work deferred by crit */
void spin_act_due(struct thread *t);      /* do it now (crit 0) */

/* The caller as a lock holder: its thread once a package runs the
   program's threads (thread_pkgs_on: rt_run, kthread) and software
   interrupts are on; else 0. */
extern int thread_pkgs_on;
struct thread *spin_owner(void);

/* 1 (default): a waiter pauses between looks at the lock. 0: it spins on
   plain loads, for a measurement under -icount with several CPUs, where
   QEMU ends a vCPU's turn at a PAUSE, so that waiting there would cost
   no guest time at all (progs/bench/mpl.c). */
extern int spin_pause;

static inline int spin_trylock(struct spin *l)
{
	return __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE) == 0;
}

/* Take l, storing v (nonzero) in it: a word that holds v is taken, any
   other value free (0; for ulib/pthread's plock also a lock of an older
   fork generation, which this takes over). t: the calling thread (its
   descriptor read once by the caller), or 0. */
static inline void spin_lock_tag(struct spin *l, struct thread *t, int v)
{
	if (t)
		t->crit++;              /* before taking it: no unguarded window */
	while (__atomic_exchange_n(&l->locked, v, __ATOMIC_ACQUIRE) == v)
		spin_wait_while(l, v);
}

static inline void spin_lock_by(struct spin *l, struct thread *t)
{
	spin_lock_tag(l, t, 1);
}

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

#endif
