/*
 * User-space spinlock: atomic exchange to take, pause while waiting.
 * Used by ulib's shared state (stdout, malloc). Hold it only for short,
 * non-blocking stretches: the holder may be preempted, and waiters spin.
 * Zero-initialized memory is an unlocked lock.
 */
#ifndef ULIB_USPIN_H
#define ULIB_USPIN_H

struct uspin {
	volatile int locked;
};

#define USPIN_INIT { 0 }

static inline int uspin_trylock(struct uspin *l)
{
	return __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE) == 0;
}

static inline void uspin_lock(struct uspin *l)
{
	while (!uspin_trylock(l))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			__asm__ volatile("pause");
}

static inline void uspin_unlock(struct uspin *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif
