/*
 * The atomics GCC does not inline but calls (what libatomic gives on
 * Linux): 16-byte ones on cmpxchg16b, and the generic ones, for objects
 * of any other size, under a small table of locks.
 *
 * A program gets these calls from __atomic_* or C11 <stdatomic.h> on a
 * 16-byte type (an ABA-counted pointer, a lock-free stack's head) or on
 * a struct whose size is not 1, 2, 4, 8 or 16; and from __sync_*_16
 * without -mcx16. cmpxchg16b is a full barrier, so every memory order
 * is served by it; a 16-byte object must be 16-byte aligned (as C gives
 * an _Atomic __int128), or the CPU faults on it, as it would on Linux.
 * The load is a compare-exchange too, so it needs writable memory, as
 * libatomic's does without AVX.
 *
 * Generic objects take the lock of their address's 64-byte line, hashed:
 * two objects may share a lock (they then wait on each other), one
 * object never has two. The locks are ulib's spin locks held with the
 * caller's crit count (spin_owner), so its package does not switch it
 * out mid-copy while another thread spins on the lock.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <animart/spin.h>

typedef unsigned __int128 u128;

/* *p == *old ? (*p = new, 1) : (*old = *p, 0), atomically. */
static inline bool cas16(volatile void *p, u128 *old, u128 new)
{
	uint64_t lo = (uint64_t)*old, hi = (uint64_t)(*old >> 64);
	bool ok;
	__asm__ volatile("lock cmpxchg16b %1"
			 : "=@ccz"(ok), "+m"(*(volatile u128 *)p), "+a"(lo), "+d"(hi)
			 : "b"((uint64_t)new), "c"((uint64_t)(new >> 64))
			 : "memory");
	*old = (u128)hi << 64 | lo;
	return ok;
}

u128 __atomic_load_16(const volatile void *p, int mo);
u128 __atomic_load_16(const volatile void *p, int mo)
{
	(void)mo;
	u128 v = 0;
	cas16((volatile void *)p, &v, 0);   /* 0 stays 0; anything else is read */
	return v;
}

void __atomic_store_16(volatile void *p, u128 v, int mo);
void __atomic_store_16(volatile void *p, u128 v, int mo)
{
	(void)mo;
	u128 old = *(volatile u128 *)p;     /* a guess; the loop corrects it */
	while (!cas16(p, &old, v))
		;
}

u128 __atomic_exchange_16(volatile void *p, u128 v, int mo);
u128 __atomic_exchange_16(volatile void *p, u128 v, int mo)
{
	(void)mo;
	u128 old = *(volatile u128 *)p;
	while (!cas16(p, &old, v))
		;
	return old;
}

/* GCC's built-in has a `weak` argument that its call leaves out: the
   symbol is named by asm, so that its declaration does not clash. */
bool cas16_call(volatile void *p, void *expected, u128 desired, int smo, int fmo)
	__asm__("__atomic_compare_exchange_16");
bool cas16_call(volatile void *p, void *expected, u128 desired, int smo, int fmo)
{
	(void)smo, (void)fmo;
	u128 e;
	memcpy(&e, expected, sizeof e);
	bool ok = cas16(p, &e, desired);
	if (!ok)
		memcpy(expected, &e, sizeof e);
	return ok;
}

/* The read-modify-writes: FETCH returns the old value, OP_FETCH the new. */
#define RMW16(name, expr)                                                          \
	u128 __atomic_fetch_##name##_16(volatile void *p, u128 v, int mo);          \
	u128 __atomic_fetch_##name##_16(volatile void *p, u128 v, int mo)           \
	{                                                                           \
		(void)mo;                                                           \
		u128 o = *(volatile u128 *)p;                                       \
		while (!cas16(p, &o, (expr)))                                       \
			;                                                           \
		return o;                                                           \
	}                                                                           \
	u128 __atomic_##name##_fetch_16(volatile void *p, u128 v, int mo);          \
	u128 __atomic_##name##_fetch_16(volatile void *p, u128 v, int mo)           \
	{                                                                           \
		(void)mo;                                                           \
		u128 o = *(volatile u128 *)p, n;                                    \
		while (!cas16(p, &o, (n = (expr))))                                 \
			;                                                           \
		return n;                                                           \
	}                                                                           \
	u128 __sync_fetch_and_##name##_16(volatile void *p, u128 v);                \
	u128 __sync_fetch_and_##name##_16(volatile void *p, u128 v)                 \
	{                                                                           \
		return __atomic_fetch_##name##_16(p, v, __ATOMIC_SEQ_CST);          \
	}                                                                           \
	u128 __sync_##name##_and_fetch_16(volatile void *p, u128 v);                \
	u128 __sync_##name##_and_fetch_16(volatile void *p, u128 v)                 \
	{                                                                           \
		return __atomic_##name##_fetch_16(p, v, __ATOMIC_SEQ_CST);          \
	}

RMW16(add, o + v)
RMW16(sub, o - v)
RMW16(and, o & v)
RMW16(or, o | v)
RMW16(xor, o ^ v)
RMW16(nand, ~(o & v))

u128 __sync_val_compare_and_swap_16(volatile void *p, u128 old, u128 new);
u128 __sync_val_compare_and_swap_16(volatile void *p, u128 old, u128 new)
{
	cas16(p, &old, new);
	return old;                      /* what *p held: old itself on success */
}

bool __sync_bool_compare_and_swap_16(volatile void *p, u128 old, u128 new);
bool __sync_bool_compare_and_swap_16(volatile void *p, u128 old, u128 new)
{
	return cas16(p, &old, new);
}

u128 __sync_lock_test_and_set_16(volatile void *p, u128 v);
u128 __sync_lock_test_and_set_16(volatile void *p, u128 v)
{
	return __atomic_exchange_16(p, v, __ATOMIC_ACQUIRE);
}

/* ---- any size, under a lock ---- */

#define NLOCK 64
static struct spin locks[NLOCK];

static struct spin *lock_of(const volatile void *p)
{
	uintptr_t a = (uintptr_t)p >> 6;
	return &locks[(a ^ (a >> 6) ^ (a >> 12)) % NLOCK];
}

static struct thread *lock(const volatile void *p)
{
	struct thread *t = spin_owner();
	spin_lock_by(lock_of(p), t);
	return t;
}

static void unlock(const volatile void *p, struct thread *t)
{
	spin_unlock_by(lock_of(p), t);
}

/* fork (ulib/pthread/pfork.c), phase 0 before the kernel's copy, 1 in
   the parent and 2 in the child: the forking thread t holds every lock
   across the copy, so the child finds none taken by a thread it has not
   got and no object half copied. Leaves: nothing is taken under them. */
void __bigatomic_fork(int phase, struct thread *t);
void __bigatomic_fork(int phase, struct thread *t)
{
	for (int i = 0; i < NLOCK; i++) {
		if (phase == 0)
			spin_lock_by(&locks[i], t);
		else
			spin_unlock_by(&locks[NLOCK - 1 - i], t);
	}
}

void __atomic_load(size_t n, const volatile void *src, void *dst, int mo);
void __atomic_load(size_t n, const volatile void *src, void *dst, int mo)
{
	(void)mo;
	struct thread *t = lock(src);
	memcpy(dst, (const void *)src, n);
	unlock(src, t);
}

void __atomic_store(size_t n, volatile void *dst, void *src, int mo);
void __atomic_store(size_t n, volatile void *dst, void *src, int mo)
{
	(void)mo;
	struct thread *t = lock(dst);
	memcpy((void *)dst, src, n);
	unlock(dst, t);
}

void __atomic_exchange(size_t n, volatile void *mem, void *val, void *ret, int mo);
void __atomic_exchange(size_t n, volatile void *mem, void *val, void *ret, int mo)
{
	(void)mo;
	struct thread *t = lock(mem);
	memcpy(ret, (void *)mem, n);
	memcpy((void *)mem, val, n);
	unlock(mem, t);
}

bool __atomic_compare_exchange(size_t n, volatile void *mem, void *expected, void *desired,
			       int smo, int fmo);
bool __atomic_compare_exchange(size_t n, volatile void *mem, void *expected, void *desired,
			       int smo, int fmo)
{
	(void)smo, (void)fmo;
	struct thread *t = lock(mem);
	bool ok = memcmp((void *)mem, expected, n) == 0;
	if (ok)
		memcpy((void *)mem, desired, n);
	else
		memcpy(expected, (void *)mem, n);
	unlock(mem, t);
	return ok;
}

/* Lock-free: what the CPU does in one instruction, aligned to its size. */
bool __atomic_is_lock_free(size_t n, const volatile void *p);
bool __atomic_is_lock_free(size_t n, const volatile void *p)
{
	return (n == 1 || n == 2 || n == 4 || n == 8 || n == 16) &&
	       (!p || (uintptr_t)p % n == 0);
}
