/*
 * The POSIX layer's per-thread state (internal to ulib/posix/): struct
 * pthread sits in the thread's TLS area just above its TCB (pthread.c).
 */
#ifndef POSIX_PT_H
#define POSIX_PT_H

#include <stddef.h>
#include <stdint.h>
#include <animart/thread.h>
#include <animart/tls.h>
#define __PTHREAD_NO_INLINE        /* the library defines the real ones */
#include <pthread.h>

/* struct pthread.state. Bit 0 is set by whichever of the thread's exit
   and its detach comes first; the second finds it set (pthread.c's
   exit_finish: one bit-test-and-set, no compare-and-swap). */
enum { JOINABLE = 0, EXITED = 1, DETACHED = 3 };
#define FN_WAITING ((void *(*)(void *))1)

struct pthread {                     /* all zero when the thread is made */
	struct thread *t;                /* set where read: main's, a detached
					    thread's as it goes on the reap list */
	/* The start routine (its argument is the package's): 0 until the
	   creator hands it over, FN_WAITING while the thread waits for that
	   (parked); one exchange on each side. */
	void *(*volatile fn)(void *);
	volatile int state;
	volatile int cancel_pending;
	int cancel_off, cancel_async;
	int exiting;                     /* in pthread_exit: cancellation is off */
	int policy, prio;                /* the scheduling the program asked for */
	struct __pthread_cleanup *cleanup;
	struct spec { unsigned seq; void *v; } *spec;   /* keys (lazily), spec_cap of them */
	unsigned spec_cap;               /* grows to the highest key set */
	struct pthread *next;            /* on the reap list */
	/* GNU extras (gnu.c) */
	char name[16];                   /* pthread_setname_np; "" until set */
	uint64_t affinity;               /* the CPUs asked for (bit i: CPU i; 0: all): recorded
					    only, VPs are not pinned (docs/posix.md) */
	size_t stacksize;                /* as created (0: the package's default) */
	void *stackaddr;                 /* pthread_attr_setstack's, which it runs on (0: none) */
	void *robust;                    /* robust mutexes it holds (mutex.c), linked by __rnext */
	struct __pthread_cleanup robust_exit;   /* at the chain's bottom once it held one */
	int sig_slot;                    /* holds a slot of ulib/libc/signal.c's table: its
					    cleanup chain ends in sig_exit_cleanup */
	int service;                     /* a service thread of the library (the timer
					    thread): __pt_daemon_enter, __pt_service */
};

/* Priorities: the program sees Linux's ranges (SCHED_FIFO and SCHED_RR
   1..99, SCHED_OTHER 0), so code that names a priority outright (10,
   80, 99) works as there; a thread's package priority (struct
   thread.prio, THREAD_PRIO_MIN..MAX) has one level for each: SCHED_OTHER
   the lowest, real-time priority p level p, so priorities that differ
   by one order threads as on Linux and any real-time thread outranks an
   ordinary one. A mutex ceiling or an inherited priority is a level of
   the same scale. */
#define PT_RT_MIN 1
#define PT_RT_MAX 99
_Static_assert(THREAD_PRIO_MAX - THREAD_PRIO_MIN == PT_RT_MAX, "a level per priority");
static inline int pt_level(int rt, int prio)
{
	if (!rt || prio < PT_RT_MIN)
		return THREAD_PRIO_MIN;
	if (prio > PT_RT_MAX)
		prio = PT_RT_MAX;
	return THREAD_PRIO_MIN + prio;
}

void __pt_cleanup_link(struct pthread *pt, struct __pthread_cleanup *c);   /* pthread.c */
extern struct thread *__pt_main_thread;   /* pthread.c: for pthread_getattr_np */
extern uintptr_t __pt_main_stack_top;

static inline struct pthread *pt_of(struct thread *t)
{
	return (struct pthread *)((char *)t->tcb + sizeof(struct tcb));
}

#endif
