/* POSIX barriers and spin locks. */
#include <errno.h>
#include "pwait.h"

int pthread_barrierattr_init(pthread_barrierattr_t *a)
{
	*a = (pthread_barrierattr_t){ 0 };
	return 0;
}

int pthread_barrierattr_destroy(pthread_barrierattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_barrierattr_setpshared(pthread_barrierattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	a->__pshared = pshared;
	return 0;
}

int pthread_barrierattr_getpshared(const pthread_barrierattr_t *a, int *pshared)
{
	*pshared = a->__pshared;
	return 0;
}

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n)
{
	(void)a;
	if (!n)
		return EINVAL;
	*b = (pthread_barrier_t){ .__n = n };
	return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *b)
{
	return b->__arrived ? EBUSY : 0;
}

/* The last to arrive releases the round and gets the serial value. */
int pthread_barrier_wait(pthread_barrier_t *b)
{
	struct thread *self = thread_self();
	plock(&b->__lk, self);
	if (++b->__arrived == b->__n) {
		b->__arrived = 0;
		b->__round++;
		struct waiter *all = b->__q.__head;
		b->__q.__head = b->__q.__tail = 0;
		punlock_grant_all(&b->__lk, all, self);
		return PTHREAD_BARRIER_SERIAL_THREAD;
	}
	struct waiter w = { self, 0, 0 };
	pq_push(&b->__q, &w);
	punlock(&b->__lk, self);
	pw_wait(&w, 0, 0, &b->__lk, &b->__q);
	return 0;
}

/* Spin locks are <spin.h>'s: a holder is not switched out by a warning or
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
	for (unsigned i = 1; pthread_spin_trylock(s); )
		while (__atomic_load_n(s, __ATOMIC_RELAXED))
			if (i++ % 128)
				__asm__ volatile("pause");
			else
				spin_turn();
	return 0;
}

int pthread_spin_trylock(pthread_spinlock_t *s)
{
	struct thread *self = thread_self();
	self->crit++;
	if (spin_trylock((struct spin *)s))
		return 0;
	self->crit--;
	if (!self->crit && self->yield_due)
		spin_yield_due(self);
	return EBUSY;
}

int pthread_spin_unlock(pthread_spinlock_t *s)
{
	spin_unlock((struct spin *)s);
	return 0;
}
