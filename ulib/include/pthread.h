/*
 * <pthread.h>: POSIX threads on Anima's standard thread interface, for
 * every package (ulib/posix/, docs/posix.md). A program linked with the
 * POSIX start runs `main` as the first thread of the package named on its
 * command line (pkg=NAME, default fifo; vps=N). Objects are
 * self-contained (no <animart/sync.h>), and all-zero is a valid default object,
 * so the static initializers are zero fills.
 */
#ifndef ULIB_PTHREAD_H
#define ULIB_PTHREAD_H

#include <stddef.h>
#include <sched.h>
#include <bits/time.h>
#include <time.h>                  /* as glibc and musl: clock_gettime for deadlines */

#ifndef __pthread_t_defined
#define __pthread_t_defined
typedef unsigned long pthread_t;      /* the thread's descriptor, as a number */
#endif

typedef struct __pthread_attr {         /* (tagged: <signal.h>'s struct sigevent) */
	int __detach, __inherit, __policy, __prio, __scope;
	size_t __stacksize, __guardsize;
	void *__stackaddr;               /* pthread_attr_setstack's: the thread runs there */
	unsigned long __affinity;        /* pthread_attr_setaffinity_np's; recorded only */
} pthread_attr_t;

/* A waiter queue and its lock (the layout ulib/posix/pwait.h uses). */
struct __pq {
	void *__head, *__tail;
};

typedef struct {
	volatile int __state;        /* 0 free, 1 held, 2 held and maybe waiters;
					from __PTHREAD_MX_TYPED (free) for a recursive
					or error-checking mutex or one with a ceiling */
	int __type;                  /* PTHREAD_MUTEX_* */
	void *__owner;               /* the holder's struct thread */
	int __count;                 /* recursive: times locked */
	int __ceiling;               /* PTHREAD_PRIO_PROTECT's ceiling + 1 (0: none;
					-1: PTHREAD_PRIO_INHERIT) */
	int __saved_prio;
	volatile int __lk;           /* guards the queue */
	struct __pq __q;
	int __robust;                /* 0, or robust: 1 consistent, 2 its owner died,
					3 not recoverable (ulib/posix/mutex.c) */
	int __pshared;               /* PTHREAD_PROCESS_SHARED: ulib/pthread/pshared.c */
	void *__rnext;               /* robust: the owner's next held one */
} pthread_mutex_t;

typedef struct {
	int __type, __protocol, __ceiling, __pshared, __robust;
} pthread_mutexattr_t;

typedef struct {
	volatile int __lk;
	int __clock;                 /* CLOCK_REALTIME (0) or CLOCK_MONOTONIC */
	struct __pq __q;
	int __pshared;               /* PTHREAD_PROCESS_SHARED: the rest is its (pshared.c) */
	volatile unsigned __seq, __nwait;
} pthread_cond_t;

typedef struct {
	int __clock, __pshared;
} pthread_condattr_t;

typedef struct {
	volatile int __lk;
	int __readers;               /* holding it for reading */
	void *__writer;              /* the struct thread holding it for writing */
	struct __pq __rq, __wq;      /* waiting readers, writers */
	int __kind;                  /* PTHREAD_RWLOCK_PREFER_* */
	int __pshared;               /* PTHREAD_PROCESS_SHARED: __readers is its word (pshared.c) */
} pthread_rwlock_t;

typedef struct {
	int __pshared, __kind;
} pthread_rwlockattr_t;

typedef struct {
	volatile int __lk;
	unsigned __n, __arrived;
	int __pshared;               /* PTHREAD_PROCESS_SHARED: __round is its word (pshared.c) */
	unsigned long __round;
	struct __pq __q;
} pthread_barrier_t;

typedef struct {
	int __pshared;
} pthread_barrierattr_t;

typedef volatile int pthread_spinlock_t;
typedef volatile int pthread_once_t;
typedef unsigned pthread_key_t;

#define PTHREAD_MUTEX_NORMAL     0
#define PTHREAD_MUTEX_RECURSIVE  1
#define PTHREAD_MUTEX_ERRORCHECK 2
#define PTHREAD_MUTEX_DEFAULT    PTHREAD_MUTEX_NORMAL
#define PTHREAD_MUTEX_RECURSIVE_NP  PTHREAD_MUTEX_RECURSIVE
#define PTHREAD_MUTEX_ERRORCHECK_NP PTHREAD_MUTEX_ERRORCHECK
/* glibc's other kinds: TIMED (FAST) is the normal one; ADAPTIVE spins a
   while before it sleeps there, and is a normal mutex here (the lock's
   waiters already spin briefly on its queue's lock only). */
#define PTHREAD_MUTEX_TIMED_NP      PTHREAD_MUTEX_NORMAL
#define PTHREAD_MUTEX_FAST_NP       PTHREAD_MUTEX_TIMED_NP
#define PTHREAD_MUTEX_ADAPTIVE_NP   3

#define PTHREAD_PRIO_NONE    0
#define PTHREAD_PRIO_INHERIT 1       /* not supported: ENOTSUP */
#define PTHREAD_PRIO_PROTECT 2

/* Read-write lock kinds (glibc's): readers first (the default), or, with
   WRITER_NONRECURSIVE, no new reader while a writer waits. PREFER_WRITER
   is the default's behaviour, as in glibc: a thread may take again a read
   lock it holds, which would deadlock behind a waiting writer. */
#define PTHREAD_RWLOCK_PREFER_READER_NP              0
#define PTHREAD_RWLOCK_PREFER_WRITER_NP              1
#define PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP 2
#define PTHREAD_RWLOCK_DEFAULT_NP PTHREAD_RWLOCK_PREFER_READER_NP

#define PTHREAD_MUTEX_STALLED 0
#define PTHREAD_MUTEX_ROBUST  1

#define PTHREAD_CREATE_JOINABLE 0
#define PTHREAD_CREATE_DETACHED 1
#define PTHREAD_INHERIT_SCHED   0
#define PTHREAD_EXPLICIT_SCHED  1
#define PTHREAD_SCOPE_SYSTEM    0
#define PTHREAD_SCOPE_PROCESS   1
#define PTHREAD_PROCESS_PRIVATE 0
#define PTHREAD_PROCESS_SHARED  1

#define PTHREAD_CANCEL_ENABLE       0
#define PTHREAD_CANCEL_DISABLE      1
#define PTHREAD_CANCEL_DEFERRED     0
#define PTHREAD_CANCEL_ASYNCHRONOUS 1
#define PTHREAD_CANCELED ((void *)-1)

#define PTHREAD_BARRIER_SERIAL_THREAD (-1)
#define PTHREAD_ONCE_INIT 0
#define PTHREAD_KEYS_MAX 1024           /* glibc's */
#define PTHREAD_DESTRUCTOR_ITERATIONS 4
#define PTHREAD_STACK_MIN 16384
#define __PTHREAD_STACK_DEFAULT (8UL << 20)   /* Linux's (RLIMIT_STACK): ulib/stack.c */
#define PTHREAD_THREADS_MAX 65536

/* A mutex that keeps an owner (recursive, error-checking, a ceiling)
   counts its lock word from here, so the inline paths' compare-and-swap
   (0 -> 1, 1 -> 0) fails on it and the library does the rest: a plain
   mutex pays nothing for the other kinds (as <animart/sync.h>'s ceilings). */
#define __PTHREAD_MX_TYPED 4

#define PTHREAD_MUTEX_INITIALIZER { .__state = 0 }
#define PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP \
	{ .__state = __PTHREAD_MX_TYPED, .__type = PTHREAD_MUTEX_RECURSIVE }
#define PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP \
	{ .__state = __PTHREAD_MX_TYPED, .__type = PTHREAD_MUTEX_ERRORCHECK }
#define PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP PTHREAD_MUTEX_INITIALIZER
#define PTHREAD_COND_INITIALIZER { .__lk = 0 }
#define PTHREAD_RWLOCK_INITIALIZER { .__lk = 0 }
#define PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP \
	{ .__kind = PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP }

/* threads */
int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
int pthread_join(pthread_t th, void **ret);
__attribute__((noreturn)) void pthread_exit(void *ret);
pthread_t pthread_self(void);
int pthread_equal(pthread_t a, pthread_t b);
int pthread_detach(pthread_t th);
int pthread_once(pthread_once_t *once, void (*fn)(void));
int pthread_setschedparam(pthread_t th, int policy, const struct sched_param *p);
int pthread_getschedparam(pthread_t th, int *policy, struct sched_param *p);
int pthread_setschedprio(pthread_t th, int prio);
int pthread_setconcurrency(int level);
int pthread_getconcurrency(void);
/* Anima has no fork(): the handlers are accepted and can never run. */
int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void));

int pthread_attr_init(pthread_attr_t *a);
int pthread_attr_destroy(pthread_attr_t *a);
int pthread_attr_setdetachstate(pthread_attr_t *a, int s);
int pthread_attr_getdetachstate(const pthread_attr_t *a, int *s);
int pthread_attr_setstacksize(pthread_attr_t *a, size_t n);
int pthread_attr_getstacksize(const pthread_attr_t *a, size_t *n);
int pthread_attr_setguardsize(pthread_attr_t *a, size_t n);
int pthread_attr_getguardsize(const pthread_attr_t *a, size_t *n);
int pthread_attr_setschedparam(pthread_attr_t *a, const struct sched_param *p);
int pthread_attr_getschedparam(const pthread_attr_t *a, struct sched_param *p);
int pthread_attr_setschedpolicy(pthread_attr_t *a, int policy);
int pthread_attr_getschedpolicy(const pthread_attr_t *a, int *policy);
int pthread_attr_setinheritsched(pthread_attr_t *a, int inherit);
int pthread_attr_getinheritsched(const pthread_attr_t *a, int *inherit);
int pthread_attr_setscope(pthread_attr_t *a, int scope);
int pthread_attr_getscope(const pthread_attr_t *a, int *scope);

int pthread_attr_setstack(pthread_attr_t *a, void *addr, size_t n);
int pthread_attr_getstack(const pthread_attr_t *a, void **addr, size_t *n);

/* GNU extensions (_np: not portable), ulib/posix/gnu.c; what each does on
   Anima: docs/posix.md. Affinity is recorded, not enforced: a thread runs
   on whatever CPU its package's VP is on (sched_getcpu tells which). */
int pthread_setname_np(pthread_t th, const char *name);        /* <= 15 chars, else ERANGE */
int pthread_getname_np(pthread_t th, char *buf, size_t n);
int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *set);
int pthread_getaffinity_np(pthread_t th, size_t size, cpu_set_t *set);
int pthread_attr_setaffinity_np(pthread_attr_t *a, size_t size, const cpu_set_t *set);
int pthread_attr_getaffinity_np(const pthread_attr_t *a, size_t size, cpu_set_t *set);
int pthread_getattr_np(pthread_t th, pthread_attr_t *a);
int pthread_getcpuclockid(pthread_t th, clockid_t *clock);      /* EINVAL in clock_gettime once th exits */
int pthread_tryjoin_np(pthread_t th, void **ret);
int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abstime);
int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clock, const struct timespec *abstime);
int pthread_yield(void);                                        /* sched_yield */
/* pthread_kill and pthread_sigmask: <signal.h> */

/* mutexes */
int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
int pthread_mutex_destroy(pthread_mutex_t *m);
int pthread_mutex_lock(pthread_mutex_t *m);
int pthread_mutex_trylock(pthread_mutex_t *m);
int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime);
int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime);
int pthread_mutex_unlock(pthread_mutex_t *m);
int __pthread_mutex_lock_slow(pthread_mutex_t *m);
int __pthread_mutex_unlock_slow(pthread_mutex_t *m);

/* A normal mutex's uncontended lock and unlock inline (one
   compare-and-swap, which fails on every other kind: __PTHREAD_MX_TYPED),
   as gnu_inline definitions: code that takes the function's address, or
   builds without optimization, gets the library's (ulib/posix/mutex.c),
   which does the same. */
#if defined(__OPTIMIZE__) && !defined(__PTHREAD_NO_INLINE)
/* 0 and 1, or -1 under det and det=par (<animart/fence.h>): then these
   compare-and-swaps fail and every lock and unlock is the library's. */
extern int __fence_mx_free, __fence_mx_held;
extern __inline __attribute__((__gnu_inline__, __always_inline__))
int pthread_mutex_lock(pthread_mutex_t *m)
{
	int e = __fence_mx_free;
	if (__builtin_expect(__atomic_compare_exchange_n(&m->__state, &e, 1, 0, __ATOMIC_ACQUIRE,
							 __ATOMIC_RELAXED), 1))
		return 0;
	return __pthread_mutex_lock_slow(m);
}

extern __inline __attribute__((__gnu_inline__, __always_inline__))
int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int e = __fence_mx_held;
	if (__builtin_expect(__atomic_compare_exchange_n(&m->__state, &e, 0, 0, __ATOMIC_RELEASE,
							 __ATOMIC_RELAXED), 1))
		return 0;
	return __pthread_mutex_unlock_slow(m);
}
#endif
int pthread_mutex_getprioceiling(const pthread_mutex_t *m, int *ceiling);
int pthread_mutex_setprioceiling(pthread_mutex_t *m, int ceiling, int *old);
int pthread_mutexattr_init(pthread_mutexattr_t *a);
int pthread_mutexattr_destroy(pthread_mutexattr_t *a);
int pthread_mutexattr_settype(pthread_mutexattr_t *a, int type);
int pthread_mutexattr_gettype(const pthread_mutexattr_t *a, int *type);
int pthread_mutexattr_setprotocol(pthread_mutexattr_t *a, int protocol);
int pthread_mutexattr_getprotocol(const pthread_mutexattr_t *a, int *protocol);
int pthread_mutexattr_setprioceiling(pthread_mutexattr_t *a, int ceiling);
int pthread_mutexattr_getprioceiling(const pthread_mutexattr_t *a, int *ceiling);
int pthread_mutexattr_setpshared(pthread_mutexattr_t *a, int pshared);
int pthread_mutexattr_getpshared(const pthread_mutexattr_t *a, int *pshared);
int pthread_mutexattr_setrobust(pthread_mutexattr_t *a, int robust);
int pthread_mutexattr_getrobust(const pthread_mutexattr_t *a, int *robust);
int pthread_mutex_consistent(pthread_mutex_t *m);
#define pthread_mutexattr_setrobust_np pthread_mutexattr_setrobust
#define pthread_mutexattr_getrobust_np pthread_mutexattr_getrobust
#define pthread_mutex_consistent_np pthread_mutex_consistent
#define PTHREAD_MUTEX_STALLED_NP PTHREAD_MUTEX_STALLED
#define PTHREAD_MUTEX_ROBUST_NP PTHREAD_MUTEX_ROBUST

/* condition variables */
int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a);
int pthread_cond_destroy(pthread_cond_t *c);
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime);
int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
			   const struct timespec *abstime);
int pthread_cond_signal(pthread_cond_t *c);
int pthread_cond_broadcast(pthread_cond_t *c);
int pthread_condattr_init(pthread_condattr_t *a);
int pthread_condattr_destroy(pthread_condattr_t *a);
int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clock);
int pthread_condattr_getclock(const pthread_condattr_t *a, clockid_t *clock);
int pthread_condattr_setpshared(pthread_condattr_t *a, int pshared);
int pthread_condattr_getpshared(const pthread_condattr_t *a, int *pshared);

/* read-write locks, barriers, spin locks */
int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a);
int pthread_rwlock_destroy(pthread_rwlock_t *l);
int pthread_rwlock_rdlock(pthread_rwlock_t *l);
int pthread_rwlock_tryrdlock(pthread_rwlock_t *l);
int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime);
int pthread_rwlock_wrlock(pthread_rwlock_t *l);
int pthread_rwlock_trywrlock(pthread_rwlock_t *l);
int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime);
int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime);
int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime);
int pthread_rwlock_unlock(pthread_rwlock_t *l);
int pthread_rwlockattr_init(pthread_rwlockattr_t *a);
int pthread_rwlockattr_destroy(pthread_rwlockattr_t *a);
int pthread_rwlockattr_setpshared(pthread_rwlockattr_t *a, int pshared);
int pthread_rwlockattr_getpshared(const pthread_rwlockattr_t *a, int *pshared);
int pthread_rwlockattr_setkind_np(pthread_rwlockattr_t *a, int kind);
int pthread_rwlockattr_getkind_np(const pthread_rwlockattr_t *a, int *kind);

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n);
int pthread_barrier_destroy(pthread_barrier_t *b);
int pthread_barrier_wait(pthread_barrier_t *b);
int pthread_barrierattr_init(pthread_barrierattr_t *a);
int pthread_barrierattr_destroy(pthread_barrierattr_t *a);
int pthread_barrierattr_setpshared(pthread_barrierattr_t *a, int pshared);
int pthread_barrierattr_getpshared(const pthread_barrierattr_t *a, int *pshared);

int pthread_spin_init(pthread_spinlock_t *s, int pshared);
int pthread_spin_destroy(pthread_spinlock_t *s);
int pthread_spin_lock(pthread_spinlock_t *s);
int pthread_spin_trylock(pthread_spinlock_t *s);
int pthread_spin_unlock(pthread_spinlock_t *s);

/* thread-specific data */
int pthread_key_create(pthread_key_t *k, void (*dtor)(void *));
int pthread_key_delete(pthread_key_t k);
void *pthread_getspecific(pthread_key_t k);
int pthread_setspecific(pthread_key_t k, const void *v);

/* cancellation (deferred; see docs/posix.md for the cancellation points) */
int pthread_cancel(pthread_t th);
int pthread_setcancelstate(int state, int *old);
int pthread_setcanceltype(int type, int *old);
void pthread_testcancel(void);

struct __pthread_cleanup {
	void (*__fn)(void *);
	void *__arg;
	struct __pthread_cleanup *__next;
};
void __pthread_cleanup_push(struct __pthread_cleanup *c, void (*fn)(void *), void *arg);
void __pthread_cleanup_pop(struct __pthread_cleanup *c, int execute);
#define pthread_cleanup_push(fn, arg) \
	do { struct __pthread_cleanup __pc; __pthread_cleanup_push(&__pc, (fn), (arg));
#define pthread_cleanup_pop(execute) \
	__pthread_cleanup_pop(&__pc, (execute)); } while (0)

#endif
