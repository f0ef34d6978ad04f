/* POSIX spin locks (pthread_spin_*). */
#include <errno.h>
#include "pwait.h"
#include <animart/fence.h>

/* Spin locks are <animart/spin.h>'s: a holder is not switched out by a warning or
   a time slice (its crit count), so its peers do not spin on a holder
   that is off its VP. */
int pthread_spin_init(pthread_spinlock_t *s, int pshared)
{
	(void)pshared;
	*s = 0;
	return 0;
}

int pthread_spin_destroy(pthread_spinlock_t *s)
{
	return *s ? EBUSY : 0;
}

/* The waiter does not raise its crit count (only the holder has it
   raised, by trylock) and gives the other threads of its VP a turn now
   and then: a POSIX spin lock's holder may block while it holds one (the
   Open POSIX suite's holder sleeps 3 s), and a waiter that could not be
   switched out kept it from ever running again on a shared VP. */
/* A waiter holds nothing: a signal handler waiting for it runs at its
   turns (an interrupt of its VP may have found another thread running
   there, and nothing else would look). */
static void spin_turn(void)
{
	thread_yield();
	struct thread *t = thread_self();
	if ((t->sigpend & SIGPEND_WAITING) && thread_signal_hook)
		thread_signal_hook(t);
}

int pthread_spin_lock(pthread_spinlock_t *s)
{
	FENCED(pthread_spin_lock(s));
	for (unsigned i = 1; pthread_spin_trylock(s); )
		while (__atomic_load_n(s, __ATOMIC_RELAXED))
			if (i++ % 128)
				__asm__ volatile("pause");
			else
				spin_turn();
	return 0;
}

/* The try and the unlock are turns on serial det (FENCED_SYNC, as a
   mutex's): a thread that polls a flag through them (try; look; unlock)
   let the thread that sets it run, where it kept the token for good. */
int pthread_spin_trylock(pthread_spinlock_t *s)
{
	FENCED_SYNC(pthread_spin_trylock(s));
	struct thread *self = thread_self();
	self->crit++;
	if (spin_trylock((struct spin *)s))
		return 0;
	self->crit--;
	if (!self->crit && self->yield_due)
		spin_yield_due(self);
	return EBUSY;
}

/* An unlock by a thread that holds no spin lock (a second unlock, or
   another thread's lock: undefined, but glibc's just stores 0, and the
   Open POSIX suite's pthread_spin_unlock 3-1 does it) frees the lock and
   leaves the caller's count of spin locks held alone: taken to -1, the
   count kept the caller from time slices and interrupts for good. */
int pthread_spin_unlock(pthread_spinlock_t *s)
{
	FENCED_SYNC(pthread_spin_unlock(s));
	struct thread *self = thread_self();
	if (self && self->crit > 0)
		spin_unlock_by((struct spin *)s, self);
	else
		__atomic_store_n(s, 0, __ATOMIC_RELEASE);
	return 0;
}
