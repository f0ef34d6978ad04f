/*
 * POSIX threads on the standard interface: each pthread is a thread of
 * the package the POSIX start chose (pstart.c: pkg=NAME), created through
 * its struct pkg and joined by thread_join's protocol (here with
 * cancellation). A pthread_t is the struct thread itself, so
 * pthread_self is thread_self (two loads). The layer's per-thread state,
 * struct pthread, sits in the thread's TLS area just above its TCB
 * (tls_extra, <animart/tls.h>), reached through struct thread.tcb: it comes and
 * goes with the thread's stack, so creating a pthread allocates nothing
 * the package does not.
 *
 * A detached thread cannot free itself (it is on its stack): it puts
 * itself on the reap list as it exits, and the next pthread_create or
 * pthread_detach frees every entry that has left its stack (JOIN_DONE).
 * So memory stays bounded by the threads alive plus those that exited
 * since the last create.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/tls.h>
#include <animart/pkg.h>
#include <sys/resource.h>
#include <unistd.h>
#include "pwait.h"
#include "pt.h"
#include <animart/fence.h>

/* Create, exit and join are measured in instructions (pbench): no frame
   pointer, as in ulib/rt/sync.c. */
#pragma GCC optimize("omit-frame-pointer")

const struct pkg *posix_pkg;        /* pstart.c's choice (default fifo) */

static volatile int live;            /* threads that have not exited */
/* Nonzero on kthread: every exit takes exit_slow, where ivcsw_of looks
   at the VP (the fast path's test ORs it in: one instruction, not a
   compare and a branch of its own). */
static long exit_kt;

/* For ulib/libc/signal.c: is every live thread one it knows? */
int __sig_main_masked(void);        /* ulib/libc/signal.c */
int __pt_nlive(void);
int __pt_nlive(void)
{
	return live;
}
static volatile uint64_t exited_nvcsw, exited_nivcsw;
static struct pthread *volatile reap;
volatile int pcancel_any;           /* some pthread_cancel happened */
/* pthread_create's general path is needed: before posix_main_init (no
   POSIX start, so no TLS: it fails there), and once some thread may have
   a scheduling other than the default, for its children to inherit. */
long __pcreate_slow = 1;   /* (long: pthread_create ORs it in); also set by
				   ulib/libc/signal.c once some thread has a mask.
				   REAP_DUE: a detached thread is on the reap list
				   (one test on create's fast path, not two). */
#define REAP_DUE 2L
#define pcreate_slow __pcreate_slow

/* A thread's involuntary switches: the runtime's count, or on kthread
   (a thread is a VP) the kernel's preemptions of its VP. */
static inline __attribute__((always_inline)) uint64_t ivcsw_of(struct thread *t)
{
	if (posix_pkg == &kthread_pkg && t == thread_self())
		t->nivcsw = vp_pseudo()->preemptions;
	return t->nivcsw;
}

static __attribute__((noinline, noreturn)) void no_tls(void)
{
	printf("pthread: called from a thread without TLS (no POSIX start?)\n");
	exit(70);
}

/*
 * A detached thread that has not exited has this stand-in as its joiner
 * (struct thread.join), so pthread_join's compare-and-swap finds it taken
 * (EINVAL) without looking at the POSIX state first. Its exit unblocks
 * the stand-in (thread_exited): that leaves a permit on a thread that
 * never runs, which is harmless (no package routine is called: it is
 * never parked). Once the thread has exited its join word is JOIN_DONE
 * again, and pthread_join looks at the state.
 */
static struct thread detached_joiner;

static inline void mark_detached(struct thread *t)
{
	uint64_t none = 0;
	__atomic_compare_exchange_n(&t->join, &none, (uint64_t)&detached_joiner, 0,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/*
 * A joined or reaped thread's join word is the thread itself (never its
 * own joiner: that is EDEADLK), put there by the one compare-and-swap
 * that claims the right to free it: a second join or detach finds it and
 * gives ESRCH, and no free happens twice. Descriptors are type-stable
 * (ulib/rt/desc.c; kthread's pool keeps them), so the word stays readable
 * until a new thread reuses the descriptor (then the old pthread_t names
 * that thread, as with glibc). In the join that blocked, the claim is the
 * test for the end it waited for (JOIN_DONE), a compare-and-swap as long
 * as the load and compare it replaced: create+join pays nothing.
 */
#define REAPED(t) ((uint64_t)(t))

/* Claim t's free if it has ended (JOIN_DONE -> REAPED): 1 if ours. The
   expected value is loaded inside the asm: written with the builtin, gcc
   kept it in a saved register across the join's block (a push, a pop, a
   move and a compare more: fifo's create+join 585 instructions, not 578). */
static inline __attribute__((always_inline)) int claim(struct thread *t)
{
	__asm__ goto("movl %[done], %%eax\n\tlock cmpxchgq %[t], %[w]\n\tje %l[ok]"
		     : : [w] "m"(t->join), [t] "r"(t), [done] "i"(JOIN_DONE)
		     : "rax", "cc", "memory" : ok);
	return 0;
ok:
	return 1;
}

/* Become t's joiner if it has none and has not ended (its join word 0
   -> self): 1 if so, else 0 with the word in *j. (The builtin had gcc
   keep &t->join in a saved register through pthread_join.) */
static inline __attribute__((always_inline)) int take(struct thread *t, struct thread *self,
						      uint64_t *j)
{
	uint64_t was = 0;
	__asm__ goto("lock cmpxchgq %[s], %[w]\n\tje %l[ok]"
		     : "+a"(was), [w] "+m"(t->join) : [s] "r"(self) : "cc", "memory" : ok);
	*j = was;                        /* (the fall-through: outputs hold here) */
	return 0;
ok:
	return 1;
}

/* The caller's state (TLS is on in every POSIX program: pstart.c). */
static inline __attribute__((always_inline)) struct pthread *self_pt(void)
{
	struct thread *t = thread_self();
	if (__builtin_expect(!t || !t->tcb, 0))
		no_tls();
	return pt_of(t);
}

/* pstart.c: before the package starts. */
void posix_init(void)
{
	/* glibc's default thread stack (RLIMIT_STACK's usual 8 MiB), main's
	   too: ported code puts large arrays on its stacks. It costs only the
	   pages a thread touches (ulib/rt/stack.c). */
	thread_stack_default = __PTHREAD_STACK_DEFAULT;
	tls_extra = sizeof(struct pthread);
	tls_setup(1);
}

/*
 * The main thread while it has not exited, for process-directed signals
 * (ulib/libc/timer.c posts a timer's signal to main first). A poster
 * holds __main_lk from its look here to the end of its post, and main's
 * pthread_exit takes it to clear main_t, so a post never touches main's
 * struct thread once it may be freed (joined or reaped). Main gets there
 * through a cleanup handler at the bottom of its chain (main_exit_cleanup,
 * set by posix_main_init), so no other thread's exit pays anything (the
 * exit path is counted in instructions: pbench's create_join).
 */
static struct thread *main_t;
struct spin __main_lk;        /* (fork holds it: pfork.c) */

struct thread *__pt_main_hold(void);
struct thread *__pt_main_hold(void)
{
	spin_lock(&__main_lk);
	return main_t;
}

void __pt_main_release(void);
void __pt_main_release(void)
{
	spin_unlock(&__main_lk);
}

static void main_gone(void *arg)
{
	(void)arg;
	spin_lock(&__main_lk);
	main_t = 0;
	spin_unlock(&__main_lk);
}

/* (not const: __pthread_sig_exit_hook may link sig_exit_cleanup after it) */
static struct __pthread_cleanup main_exit_cleanup = { .__fn = main_gone };

/* The caller is a service thread of the library (the timer thread): it
   does not keep the program alive, so the process still ends when the
   program's last thread exits. It never exits itself. */
void __pt_daemon(void);
void __pt_daemon(void)
{
	if (__atomic_sub_fetch(&live, 1, __ATOMIC_ACQ_REL) == 0)
		exit(0);
}

/* The caller, a service thread, takes up work the program waits for (an
   asynchronous I/O worker's request, ulib/libc/aio.c): a live thread
   again until its next __pt_daemon. So the process does not end under
   a request, and det sees another thread (ulib/libc/nap.h): a worker
   waiting for a pipe another thread of the program drains polls there,
   where a wait in the kernel held det's token. */
void __pt_undaemon(void);
void __pt_undaemon(void)
{
	__atomic_add_fetch(&live, 1, __ATOMIC_ACQ_REL);
}

/* A service thread's first steps: every signal blocked (the program's
   signals are for its own threads), then __pt_daemon. */
void __pt_daemon_enter(void);
void __pt_daemon_enter(void)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, 0);
	pt_of(thread_self())->service = 1;
	__pt_daemon();
}

/* Whether t is such a service thread: its waits are the program's
   timers, due at times from outside (det runs them on real time, not
   on its logical time: threadpkgs/det/det.c). */
static struct thread *making;        /* the thread making a service thread now */
int __pt_service(struct thread *t);
int __pt_service(struct thread *t)
{
	if (!t->tcb)
		return 0;
	/* One being made (not its maker): det queues it as it is created,
	   before it ran __pt_daemon_enter, and must know it then. */
	struct thread *m = __atomic_load_n(&making, __ATOMIC_ACQUIRE);
	return pt_of(t)->service || (m && t != m);
}

/* The caller is making a service thread now (det=par makes it no det
   thread: threadpkgs/det/par.c). */
int __pt_making_service(void);
int __pt_making_service(void)
{
	return __atomic_load_n(&making, __ATOMIC_ACQUIRE) == thread_self();
}

/* Start fn as a detached service thread once: *started is 0 until the
   first caller made it (or is making it); 0, or EAGAIN if it could not
   be made (and a later call tries again). */
int __pt_daemon_once(int *started, void *(*fn)(void *));
int __pt_daemon_once(int *started, void *(*fn)(void *))
{
	if (__atomic_load_n(started, __ATOMIC_ACQUIRE) || __atomic_exchange_n(started, 1, __ATOMIC_ACQ_REL))
		return 0;
	pthread_attr_t a;
	pthread_t th;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	__atomic_store_n(&making, thread_self(), __ATOMIC_RELEASE);
	int e = pthread_create(&th, &a, fn, 0);
	if (!e)
		pt_of((struct thread *)th)->service = 1;   /* (before its first turn too) */
	__atomic_store_n(&making, 0, __ATOMIC_RELEASE);
	if (e) {
		__atomic_store_n(started, 0, __ATOMIC_RELEASE);
		return EAGAIN;
	}
	return 0;
}

/* pstart.c: the calling thread is main's. */
/* Main's thread and the top of its stack, for pthread_getattr_np: under
   its TLS block when its package put that on its stack (as for every
   thread of the VP runtime), else (kthread's main, whose TLS block the
   start allocated) the page boundary just above this frame, near the
   top of the stack main was moved to (page-aligned, ulib/rt/stack.c). */
struct thread *__pt_main_thread;
uintptr_t __pt_main_stack_top;

void posix_main_init(void)
{
	struct pthread *pt = self_pt();
	pt->t = thread_self();
	main_t = pt->t;
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	uintptr_t below_tls = (uintptr_t)pt->t->tcb - tls_below_tcb();
	__pt_main_thread = pt->t;
	__pt_main_stack_top = below_tls > here && below_tls - here < 65536 ? below_tls :
			      (here + 4095) & ~(uintptr_t)4095;
	pt->cleanup = &main_exit_cleanup;
	exit_kt = posix_pkg == &kthread_pkg;
	live = 1;
	pcreate_slow = __sig_main_masked();   /* (main takes an exec's mask: threads inherit it) */
}

static void once_forked(void);

/* A fork's child (pfork.c): the caller is its one live thread. */
void __pt_fork_child(void);
void __pt_fork_child(void)
{
	if (live)
		live = 1;
	once_forked();
}

/* Free every detached thread that has left its stack. */
static void reap_done(void)
{
	if (!__atomic_load_n(&reap, __ATOMIC_ACQUIRE))
		return;
	struct pthread *r = __atomic_exchange_n(&reap, 0, __ATOMIC_ACQ_REL);
	while (r) {
		struct pthread *next = r->next;  /* r goes with its thread */
		struct thread *t = r->t;
		if (claim(t))
			t->ops->free(t);
		else {
			struct pthread *head = reap;
			do
				r->next = head;
			while (!__atomic_compare_exchange_n(&reap, &head, r, 1, __ATOMIC_RELEASE,
							    __ATOMIC_RELAXED));
		}
		r = next;
	}
}

/* The calling thread's state from its FS base (the TCB): only for
   threads pthread_create made, which have TLS. */
static inline struct pthread *tcb_pt(void)
{
	char *tcb;
	__asm__("mov %%fs:0, %0" : "=r"(tcb));
	return (struct pthread *)(tcb + sizeof(struct tcb));
}

/* Started before create filled in fn (a higher priority, another VP):
   wait for the creator, parked (a yield could spin for ever in a
   package that never yields to a lower priority). */
static inline __attribute__((always_inline, noreturn)) void exit_as(struct pthread *pt, void *ret);

static __attribute__((noinline, noreturn)) void entry_late(void *arg)
{
	struct pthread *pt = tcb_pt();
	void *(*fn)(void *) = 0;
	if (__atomic_compare_exchange_n(&pt->fn, &fn, FN_WAITING, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		while ((fn = __atomic_load_n(&pt->fn, __ATOMIC_ACQUIRE)) == FN_WAITING)
			thread_block();
	void *ret = fn(arg);
	exit_as(tcb_pt(), ret);
}

/* The package's fn of every pthread. Whatever it needs after fn it finds
   again (tcb_pt), so it keeps nothing in saved registers. */
static __attribute__((noreturn)) void *entry(void *arg)
{
	void *(*fn)(void *) = __atomic_load_n(&tcb_pt()->fn, __ATOMIC_ACQUIRE);
	if (__builtin_expect(!fn, 0))
		entry_late(arg);
	void *ret = fn(arg);
	exit_as(tcb_pt(), ret);
}

/* The general path's entry: a signal posted to the thread before it ran
   (a kill of the program picks a thread it knows, ulib/libc/signal.c) runs
   first, for nothing else would interrupt a thread that only computes
   on a package with no time slices. */
static __attribute__((noreturn)) void *entry_sig(void *arg)
{
	struct thread *t = thread_self();
	if ((t->sigpend & SIGPEND_WAITING) && thread_signal_hook)
		thread_signal_hook(t);
	entry(arg);
}

/* ---- attributes ---- */

int pthread_attr_init(pthread_attr_t *a)
{
	*a = (pthread_attr_t){ .__stacksize = __PTHREAD_STACK_DEFAULT, .__guardsize = PAGE_SIZE };
	return 0;
}

int pthread_attr_destroy(pthread_attr_t *a)
{
	(void)a;
	return 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *a, int s)
{
	if (s != PTHREAD_CREATE_JOINABLE && s != PTHREAD_CREATE_DETACHED)
		return EINVAL;
	a->__detach = s;
	return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *a, int *s)
{
	*s = a->__detach;
	return 0;
}

int pthread_attr_setstacksize(pthread_attr_t *a, size_t n)
{
	if (n < PTHREAD_STACK_MIN || n > (1UL << 30))
		return EINVAL;
	a->__stacksize = n;
	return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *a, size_t *n)
{
	*n = a->__stacksize;
	return 0;
}

int pthread_attr_setguardsize(pthread_attr_t *a, size_t n)
{
	a->__guardsize = n;              /* kept: a stack over 64 KiB has one unmapped page below it */
	return 0;
}

int pthread_attr_getguardsize(const pthread_attr_t *a, size_t *n)
{
	*n = a->__guardsize;
	return 0;
}

static int prio_ok(int policy, int prio)
{
	return prio >= sched_get_priority_min(policy) && prio <= sched_get_priority_max(policy);
}

int pthread_attr_setschedparam(pthread_attr_t *a, const struct sched_param *p)
{
	/* The range of the policy the attribute has now (glibc's check);
	   create checks again against the policy it has then. */
	if (!prio_ok(a->__policy, p->sched_priority))
		return EINVAL;
	a->__prio = p->sched_priority;
	return 0;
}

int pthread_attr_getschedparam(const pthread_attr_t *a, struct sched_param *p)
{
	p->sched_priority = a->__prio;
	return 0;
}

int pthread_attr_setschedpolicy(pthread_attr_t *a, int policy)
{
	if (policy != SCHED_OTHER && policy != SCHED_FIFO && policy != SCHED_RR)
		return EINVAL;
	a->__policy = policy;
	return 0;
}

int pthread_attr_getschedpolicy(const pthread_attr_t *a, int *policy)
{
	*policy = a->__policy;
	return 0;
}

int pthread_attr_setinheritsched(pthread_attr_t *a, int inherit)
{
	if (inherit != PTHREAD_INHERIT_SCHED && inherit != PTHREAD_EXPLICIT_SCHED)
		return EINVAL;
	a->__inherit = inherit;
	return 0;
}

int pthread_attr_getinheritsched(const pthread_attr_t *a, int *inherit)
{
	*inherit = a->__inherit;
	return 0;
}

int pthread_attr_setscope(pthread_attr_t *a, int scope)
{
	if (scope == PTHREAD_SCOPE_PROCESS)
		return ENOTSUP;              /* every thread competes as its package does */
	if (scope != PTHREAD_SCOPE_SYSTEM)
		return EINVAL;
	a->__scope = scope;
	return 0;
}

int pthread_attr_getscope(const pthread_attr_t *a, int *scope)
{
	*scope = a->__scope;
	return 0;
}

/* ---- threads ---- */

/* t is made: hand it fn and let it run (it may be waiting already). */
static inline int publish(pthread_t *th, struct thread *t, void *(*fn)(void *))
{
	__atomic_fetch_add(&live, 1, __ATOMIC_RELAXED);
	struct pthread *pt = pt_of(t);   /* zeroed by the package (tls_place) */
	*th = (pthread_t)t;
	if (__atomic_exchange_n(&pt->fn, fn, __ATOMIC_ACQ_REL) == FN_WAITING)
		thread_unblock(t);           /* it ran first and waits for us */
	return 0;
}

/* ulib/libc/signal.c: t was made by pthread_create and has not been
   handed its fn yet (publish), so it runs none of the program's code and
   its creator's __sig_inherit may be still to come. Main has no fn. */
int __pt_unborn(struct thread *t);
int __pt_unborn(struct thread *t)
{
	if (!live || !t->tcb || t == __pt_main_thread)
		return 0;
	void *(*fn)(void *) = __atomic_load_n(&pt_of(t)->fn, __ATOMIC_ACQUIRE);
	return !fn || fn == FN_WAITING;
}

/* Signal masks (ulib/libc/signal.c). A thread with a mask holds a slot of
   its table; this cleanup, last of the thread's (at the bottom of its
   chain), gives the slot back as the thread exits. */
int __sig_inherit(struct thread *t);
void __sig_thread_exit(void);

static void sig_exit(void *arg)
{
	(void)arg;
	__sig_thread_exit();
}

static const struct __pthread_cleanup sig_exit_cleanup = { .__fn = sig_exit };

/* ulib/libc/signal.c: the calling thread now has a mask. */
void __pthread_sig_exit_hook(void)
{
	struct thread *t = thread_self();
	if (!t->tcb)
		return;
	struct pthread *pt = pt_of(t);
	if (pt->sig_slot)
		return;
	pt->sig_slot = 1;
	struct __pthread_cleanup **end = &pt->cleanup;
	while (*end)
		end = &(*end)->__next;
	*end = (struct __pthread_cleanup *)&sig_exit_cleanup;
}

/* Link c, a record of pt's own, into its cleanup chain below every
   handler the program pushed (their pops must find their own) and above
   the library's shared records (main's, the signal table's: last, and
   not to be written). */
void __pt_cleanup_link(struct pthread *pt, struct __pthread_cleanup *c)
{
	struct __pthread_cleanup **end = &pt->cleanup;
	while (*end && *end != &main_exit_cleanup && *end != &sig_exit_cleanup)
		end = &(*end)->__next;
	c->__next = *end;
	*end = c;
}

static int rt_denied(int from, int fprio, int to, int tprio);

/* Attributes, inherited scheduling, detached threads to reap. */
static __attribute__((noinline)) int create_slow(pthread_t *th, const pthread_attr_t *attr,
						 void *(*fn)(void *), void *arg)
{
	struct pthread *me = self_pt();
	/* (cleared before the list is taken: a thread put on it later sets
	   it again; the plain stores of 1 elsewhere keep every create here) */
	__atomic_fetch_and(&pcreate_slow, ~REAP_DUE, __ATOMIC_ACQ_REL);
	reap_done();
	struct thread_attr ta = { 0 };
	int policy = me->policy, prio = me->prio;
	if (attr) {
		ta.stack_size = attr->__stacksize;
		ta.stack_addr = attr->__stackaddr;   /* the program's own stack, if set */
		if (attr->__guardsize && !attr->__stackaddr && attr->__stacksize <= STACK_SMALL)
			ta.stack_size |= STACK_GUARD;    /* mapped: a fault below it, as glibc's */
		if (attr->__inherit == PTHREAD_EXPLICIT_SCHED) {
			policy = attr->__policy;
			prio = attr->__prio;
			if (!prio_ok(policy, prio))
				return EINVAL;   /* Linux's answer: FIFO at 0, OTHER at 10 */
			if (rt_denied(me->policy, me->prio, policy, prio))
				return EPERM;    /* (glibc's: the new thread's sched_setscheduler) */
		}
	}
	ta.prio = pt_level(policy == SCHED_FIFO || policy == SCHED_RR, prio);
	if (policy | prio)
		pcreate_slow = 1;            /* its children inherit it */
	const struct pkg *p = posix_pkg ? posix_pkg : &fifo_pkg;
	struct thread *t = p->create(entry_sig, arg, &ta);
	if (!t)
		return EAGAIN;
	struct pthread *pt = pt_of(t);
	/* The creator's signal mask, in place before t runs any of the
	   program's code (it waits for fn: publish). */
	if (__sig_inherit(t)) {
		pt->sig_slot = 1;
		pt->cleanup = (struct __pthread_cleanup *)&sig_exit_cleanup;
	}
	pt->policy = policy;
	pt->prio = prio;
	t->rr = policy == SCHED_RR;      /* (read at its slices: before it computes) */
	if (attr) {
		pt->stacksize = attr->__stacksize;
		pt->stackaddr = attr->__stackaddr;
		pt->affinity = attr->__affinity;
	}
	if (attr && attr->__detach) {    /* (it waits for publish: it cannot exit yet) */
		pt->state = DETACHED;
		mark_detached(t);
	}
	return publish(th, t, fn);
}

/* The common case: no attributes, the default scheduling everywhere (so
   nothing to inherit), nobody to reap: the package's defaults. */
int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	if (__builtin_expect((uintptr_t)attr | (uintptr_t)pcreate_slow, 0))
		return create_slow(th, attr, fn, arg);
	/* fn waits in *th across the package's create (POSIX leaves *th
	   undefined on failure): one saved register, not two and a pad. */
	*(void **)th = (void *)fn;
	struct thread *t = posix_pkg->create(entry, arg, 0);
	if (__builtin_expect(!t, 0))
		return EAGAIN;
	return publish(th, t, (void *(*)(void *))*(void **)th);
}

pthread_t pthread_self(void)
{
	return (pthread_t)thread_self();
}

int pthread_equal(pthread_t a, pthread_t b)
{
	return a == b;
}

static void run_key_dtors(struct pthread *pt);

/* Cleanup handlers, then key destructors. */
static __attribute__((noinline)) void exit_cleanup(struct pthread *pt)
{
	while (pt->cleanup) {
		struct __pthread_cleanup *c = pt->cleanup;
		pt->cleanup = c->__next;
		c->__fn(c->__arg);
	}
	if (pt->spec) {
		run_key_dtors(pt);
		free(pt->spec);
		pt->spec = 0;
		pt->spec_cap = 0;
	}
}

/* A detached thread: the next create or detach frees it. */
static __attribute__((noinline, noreturn)) void to_reap(void)
{
	struct thread *t = thread_self();
	struct pthread *pt = pt_of(t);
	pt->t = t;
	struct pthread *head = reap;
	do
		pt->next = head;
	while (!__atomic_compare_exchange_n(&reap, &head, pt, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	__atomic_fetch_or(&pcreate_slow, REAP_DUE, __ATOMIC_RELEASE);
	t->ops->exit(t);
}

/* The end of every exit; every call in it is the last (no saved registers).
   slow: exit_slow's (ivcsw_of's look at kthread), else exit_kt was 0. */
static inline __attribute__((always_inline, noreturn)) void exit_finish(struct pthread *pt,
									 struct thread *t, int slow)
{
	__atomic_fetch_add(&exited_nvcsw, t->nvcsw, __ATOMIC_RELAXED);
	__atomic_fetch_add(&exited_nivcsw, slow ? ivcsw_of(t) : t->nivcsw, __ATOMIC_RELAXED);
	if (__atomic_sub_fetch(&live, 1, __ATOMIC_ACQ_REL) == 0)
		exit(0);                     /* the last thread: the process ends */
	/* joinable: the joiner frees it; detached: the reaper does */
	__asm__ goto("lock btsl $0, %[s]\n\tjc %l[detached]"
		     : [s] "+m"(*(int *)&pt->state) : : "cc", "memory" : detached);
	t->ops->exit(t);                 /* thread_exit, with t at hand */
	__builtin_unreachable();
detached:
	to_reap();
}

/* (Its arguments found again: computed before the fast path's test they
   cost an instruction there.) */
static __attribute__((noinline, noreturn)) void exit_slow(void)
{
	struct thread *t = thread_self();
	if (pt_of(t)->cleanup || pt_of(t)->spec)   /* (kthread's exits come here for ivcsw_of) */
		exit_cleanup(pt_of(t));  /* (cancellation off: exit_as) */
	exit_finish(pt_of(t), t, 1);
}

static inline __attribute__((always_inline, noreturn)) void exit_as(struct pthread *pt, void *ret)
{
	struct thread *t = thread_self();
	t->retval = ret;                 /* read by the joiner only after the exit */
	/* Cancellation off from here on, asynchronous too: an upcall during
	   the exit (pthread_cancel's kick, pw_done's) would otherwise send a
	   thread with an asynchronous cancel pending back to the start of its
	   exit, and it exited twice (the process ended early: `live`). */
	pt->exiting = 1;
	if (__builtin_expect((uintptr_t)pt->cleanup | (uintptr_t)pt->spec | exit_kt, 0))
		exit_slow();
	exit_finish(pt, t, 0);
}

void pthread_exit(void *ret)
{
	exit_as(self_pt(), ret);
}

/* A cancel came while joining: stop joining, then act on it. */
static __attribute__((noinline, noreturn)) void join_cancelled(struct thread *t)
{
	uint64_t expect = (uint64_t)thread_self();
	__atomic_compare_exchange_n(&t->join, &expect, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	pcancel_act();
}

/* A handler for a joiner: ret waits in the joiner's retval meanwhile
   (pthread_join), which a join inside the handler would take. */
static __attribute__((noinline)) void join_sig(void)
{
	struct thread *self = thread_self();
	void *keep = self->retval;
	psig_run(self);
	self->retval = keep;
}

int pthread_join(pthread_t th, void **ret)
{
	struct thread *t = (struct thread *)th, *self = thread_self();
	if (t == self)
		return EDEADLK;
	/* ret waits in our own retval (meaningless until we exit, when it is
	   set) across the calls below: one saved register, t, not three. */
	self->retval = ret;
	uint64_t j;                      /* a live detached thread's: detached_joiner */
	if (take(t, self, &j)) {
		if (pcancel_pending())       /* it had not exited: wait (a cancellation point) */
			join_cancelled(t);
		for (;;) {
			thread_block();
			if (claim(t))
				break;
			if (__atomic_load_n(&t->join, __ATOMIC_ACQUIRE) == REAPED(t))
				return ESRCH;        /* another join (undefined) took it meanwhile */
			/* Woken with t still running: a handler for us runs
			   here and the join goes on (pthread_join never fails
			   with EINTR). Only here, not at the join's end: the
			   fast path keeps its count (pbench's create_join is
			   held to 1.10 of the interface's), so a signal that
			   comes with the exit's wake-up runs at the thread's
			   next look (docs/libc.md). self read again: kept
			   across the block it would cost a register. */
			if (psig_due(thread_self()))
				join_sig();
			if (pcancel_pending())
				join_cancelled(t);
		}
	} else if (j == REAPED(t))
		return ESRCH;                /* joined, or detached and reaped, already */
	else if (j != JOIN_DONE || pt_of(t)->state == DETACHED)
		return EINVAL;               /* someone else joins it, or detached */
	else {
		if (pcancel_pending())       /* exited already: a cancellation point all */
			pcancel_act();       /* the same, and t stays joinable */
		if (!claim(t))
			return ESRCH;        /* another join (undefined) took it meanwhile */
	}
	void **to = thread_self()->retval;
	if (to)
		*to = t->retval;
	t->ops->free(t);
	return 0;
}

/* GNU: join only a thread that has exited (EBUSY at once otherwise). */
int pthread_tryjoin_np(pthread_t th, void **ret)
{
	struct thread *t = (struct thread *)th;
	if (t == thread_self())
		return EDEADLK;
	uint64_t j = __atomic_load_n(&t->join, __ATOMIC_ACQUIRE);
	if (j == REAPED(t))
		return ESRCH;
	if (j == 0)
		return EBUSY;                /* joinable, still running */
	if (j != JOIN_DONE || pt_of(t)->state == DETACHED)
		return EINVAL;
	return pthread_join(th, ret);    /* exited: JOIN_DONE is final, it does not block */
}

/* GNU: pthread_join until abstime on `clock` (CLOCK_REALTIME or
   CLOCK_MONOTONIC; null: no limit). A timeout gives the join word back,
   so the thread may be joined later. */
int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clock, const struct timespec *abstime)
{
	struct thread *t = (struct thread *)th, *self = thread_self();
	if (t == self)
		return EDEADLK;
	int64_t d = abstime ? pdeadline(clock, abstime) : 0;
	if (d < 0)
		return EINVAL;
	uint64_t j = 0;
	if (__atomic_compare_exchange_n(&t->join, &j, (uint64_t)self, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&t->join, __ATOMIC_ACQUIRE) != JOIN_DONE) {
			if (pcancel_pending())
				join_cancelled(t);
			if (psig_due(self))      /* as pthread_join */
				psig_run(self);
			if (thread_block_until((uint64_t)d) != -ETIMEDOUT)
				continue;
			uint64_t me = (uint64_t)self;
			if (__atomic_compare_exchange_n(&t->join, &me, 0, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				return ETIMEDOUT;
			/* it exited meanwhile (its unblock stays a permit): join it */
		}
		if (!claim(t))
			return ESRCH;            /* another join (undefined) took it meanwhile */
	} else if (j == REAPED(t))
		return ESRCH;
	else if (j != JOIN_DONE || pt_of(t)->state == DETACHED)
		return EINVAL;
	else {
		if (pcancel_pending())       /* as pthread_join */
			pcancel_act();
		if (!claim(t))
			return ESRCH;
	}
	if (ret)
		*ret = t->retval;
	t->ops->free(t);
	return 0;
}

int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abstime)
{
	return pthread_clockjoin_np(th, ret, CLOCK_REALTIME, abstime);
}

int pthread_detach(pthread_t th)
{
	FENCED(pthread_detach(th));
	struct thread *t = (struct thread *)th;
	if (__atomic_load_n(&t->join, __ATOMIC_ACQUIRE) == REAPED(t))
		return ESRCH;                /* (its stack may be gone: kthread's pool) */
	struct pthread *pt = pt_of(t);
	int was = JOINABLE;
	if (__atomic_compare_exchange_n(&pt->state, &was, DETACHED, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		mark_detached((struct thread *)th);   /* (unless it exited meanwhile) */
		reap_done();
		return 0;
	}
	if (was == DETACHED)
		return EINVAL;
	return pthread_join(th, 0);      /* it has exited: reclaim it now */
}

int sched_yield(void)
{
	struct thread *t = thread_self();
	if (t) {
		t->nvcsw++;
		thread_yield();
		/* a signal handler that waits for us (ulib/libc/signal.c) runs now:
		   on packages that cannot interrupt a running thread (naive,
		   kthread), a computing thread that yields still gets it */
		if (__builtin_expect(t->sigpend & SIGPEND_WAITING, 0) && thread_signal_hook)
			thread_signal_hook(t);
	} else
		sys_yield();
	return 0;
}

static int rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* Linux's rule for a caller without CAP_SYS_NICE, under RLIMIT_RTPRIO
   0 (its default; Anima has no such limit to raise): one that is not
   root may neither take up a real-time policy other than the one it has
   nor raise its real-time priority (EPERM); lowering it, or leaving for
   SCHED_OTHER, is free. From policy `from` at `fprio` to `to` at `tprio`. */
static int rt_denied(int from, int fprio, int to, int tprio)
{
	return rt_policy(to) && (to != from || tprio > fprio) && geteuid() != 0;
}

static int known_policy(int policy)
{
	return rt_policy(policy) || policy == SCHED_OTHER || policy == __SCHED_BATCH ||
	       policy == __SCHED_IDLE;
}

/* A policy that is not Linux's: -1 with EINVAL, as glibc's. */
static int no_policy(int policy)
{
	if (known_policy(policy))
		return 0;
	errno = EINVAL;
	return -1;
}

int sched_get_priority_min(int policy)
{
	return no_policy(policy) ? -1 : rt_policy(policy) ? PT_RT_MIN : 0;
}

int sched_get_priority_max(int policy)
{
	return no_policy(policy) ? -1 : rt_policy(policy) ? PT_RT_MAX : 0;
}

int pthread_setschedparam(pthread_t th, int policy, const struct sched_param *p)
{
	struct pthread *pt = pt_of((struct thread *)th);
	if (!known_policy(policy) || !prio_ok(policy, p->sched_priority))
		return EINVAL;
	if (rt_denied(pt->policy, pt->prio, policy, p->sched_priority))
		return EPERM;
	pt->policy = policy;
	pt->prio = p->sched_priority;
	((struct thread *)th)->rr = policy == SCHED_RR;   /* prio slices it */
	if (policy | p->sched_priority)
		pcreate_slow = 1;            /* th's children inherit it */
	/* through the package: a thread waiting to run moves to its new
	   level (and preempts a lower one), as on Linux */
	thread_set_prio((struct thread *)th, pt_level(rt_policy(policy), p->sched_priority));
	if (th == pthread_self())
		thread_yield();              /* a lower priority: let higher ones run */
	else
		thread_turn();           /* (det: a turn, as a signal call's: a loop on it lets a sleeper wake) */
	return 0;
}

int pthread_getschedparam(pthread_t th, int *policy, struct sched_param *p)
{
	struct pthread *pt = pt_of((struct thread *)th);
	*policy = pt->policy;
	p->sched_priority = pt->prio;
	return 0;
}

int pthread_setschedprio(pthread_t th, int prio)
{
	struct sched_param p = { prio };
	return pthread_setschedparam(th, pt_of((struct thread *)th)->policy, &p);
}

static int concurrency;

int pthread_setconcurrency(int level)
{
	if (level < 0)
		return EINVAL;
	concurrency = level;             /* a hint; VPs are set at start (vps=N) */
	return 0;
}

int pthread_getconcurrency(void)
{
	return concurrency;
}

/* (pthread_atfork is with fork: pfork.c) */

/* ---- once ---- */

/* Callers that find the routine running wait on one queue for all once
   objects (pthread_once_t is a bare int): 0 not run, 2 done, running is
   once_gen | 1. once_gen (a multiple of 4) goes up at each fork in the
   child, as glibc's fork generation: a child that finds an object
   running from an older generation had the runner stay in the parent,
   so it runs the routine itself instead of waiting for good. */
static volatile int once_lk;
static struct __pq once_q;
static int once_gen;

/* Set *once to `to` and wake every waiter: they recheck their own. */
static void once_set(pthread_once_t *once, int to)
{
	struct thread *self = thread_self();
	plock(&once_lk, self);
	__atomic_store_n(once, to, __ATOMIC_RELEASE);
	struct waiter *w = once_q.__head;
	once_q.__head = once_q.__tail = 0;
	punlock_grant_all(&once_lk, w, self);
}

/* A fork's child: the lock free and no waiters (they are copies of
   threads it has not got; one that held the lock at the copy kept it
   taken here for good). */
static void once_forked(void)
{
	once_lk = 0;
	once_q = (struct __pq){ 0 };
	once_gen += 4;
}

/* The routine was cancelled (or its thread exited): POSIX has the once
   object as if pthread_once had never been called, so a waiter runs it. */
static void once_undo(void *once)
{
	once_set((pthread_once_t *)once, 0);
}

/* A turn on serial det (FENCED_SYNC_WAIT, as a barrier's: it may wait
   for the runner, so its turn is at its end and never quiet): a thread
   that loops on it while another sleeps (the Open POSIX suite's
   pthread_once 6-1) kept the token for good. */
int pthread_once(pthread_once_t *once, void (*fn)(void))
{
	FENCED_SYNC_WAIT(pthread_once(once, fn));
	struct thread *self = thread_self();
	for (;;) {
		int s = __atomic_load_n(once, __ATOMIC_ACQUIRE);
		if (s == 2)
			return 0;
		int run = once_gen | 1;
		if (s != run) {     /* 0, or running in a parent at a fork: no runner here */
			if (!__atomic_compare_exchange_n(once, &s, run, 0, __ATOMIC_ACQ_REL,
							 __ATOMIC_ACQUIRE))
				continue;
			struct __pthread_cleanup c;
			__pthread_cleanup_push(&c, once_undo, (void *)(uintptr_t)once);
			fn();
			__pthread_cleanup_pop(&c, 0);
			once_set(once, 2);
			return 0;
		}
		struct waiter w = { self, 0, 0 };    /* running here: wait for 2 (or 0) */
		plock(&once_lk, self);
		if (__atomic_load_n(once, __ATOMIC_ACQUIRE) != run) {
			punlock(&once_lk, self);
			continue;
		}
		pq_push(&once_q, &w);
		punlock(&once_lk, self);
		pw_wait(&w, 0, 0, &once_lk, &once_q);
	}
}

/* ---- keys ---- */

static struct {
	volatile int used;
	unsigned seq;                    /* bumped at delete: old values vanish */
	void (*dtor)(void *);
} keys[PTHREAD_KEYS_MAX];
struct spin __keys_lk;       /* (fork holds it: pfork.c) */

int pthread_key_create(pthread_key_t *k, void (*dtor)(void *))
{
	spin_lock(&__keys_lk);
	for (unsigned i = 0; i < PTHREAD_KEYS_MAX; i++) {
		if (keys[i].used)
			continue;
		keys[i].used = 1;
		keys[i].seq++;
		keys[i].dtor = dtor;
		spin_unlock(&__keys_lk);
		*k = i;
		return 0;
	}
	spin_unlock(&__keys_lk);
	return EAGAIN;
}

int pthread_key_delete(pthread_key_t k)
{
	if (k >= PTHREAD_KEYS_MAX || !keys[k].used)
		return EINVAL;
	spin_lock(&__keys_lk);
	keys[k].used = 0;
	keys[k].seq++;
	spin_unlock(&__keys_lk);
	return 0;
}

void *pthread_getspecific(pthread_key_t k)
{
	struct pthread *pt = self_pt();
	if (k >= pt->spec_cap || pt->spec[k].seq != keys[k].seq)
		return 0;
	return pt->spec[k].v;
}

int pthread_setspecific(pthread_key_t k, const void *v)
{
	struct pthread *pt = self_pt();
	if (k >= PTHREAD_KEYS_MAX || !keys[k].used)
		return EINVAL;
	if (k >= pt->spec_cap) {
		/* Values for keys up to the highest one set, in steps of
		   doubling from 32: most programs use a few keys, not 1024. */
		unsigned cap = pt->spec_cap ? pt->spec_cap : 32;
		while (cap <= k)
			cap *= 2;
		struct spec *s = realloc(pt->spec, cap * sizeof *s);
		if (!s)
			return ENOMEM;
		memset(s + pt->spec_cap, 0, (cap - pt->spec_cap) * sizeof *s);
		pt->spec = s;
		pt->spec_cap = cap;
	}
	pt->spec[k].seq = keys[k].seq;
	pt->spec[k].v = (void *)v;
	return 0;
}

static void run_key_dtors(struct pthread *pt)
{
	for (int round = 0; pt->spec && round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
		int ran = 0;
		for (unsigned k = 0; k < pt->spec_cap; k++) {   /* (a destructor may grow it) */
			void *v = pt->spec[k].v;
			void (*dtor)(void *) = keys[k].dtor;
			if (!v || !keys[k].used || pt->spec[k].seq != keys[k].seq || !dtor)
				continue;
			pt->spec[k].v = 0;
			dtor(v);
			ran = 1;
		}
		if (!ran)
			break;
	}
}

/* ---- cancellation (deferred) ---- */

__attribute__((noinline)) int pcancel_check(void)   /* (inlined, it cost pthread_join a jump) */
{
	struct thread *t = thread_self();
	struct pthread *pt = t && t->tcb ? pt_of(t) : 0;
	return pt && pt->cancel_pending && !pt->cancel_off && !pt->exiting;
}

int pcancel_check_async(void)
{
	struct thread *t = thread_self();
	return pcancel_check() && pt_of(t)->cancel_async;
}

void pcancel_act(void)
{
	pthread_exit(PTHREAD_CANCELED);
}

int pthread_cancel(pthread_t th)
{
	struct thread *t = (struct thread *)th;
	struct pthread *pt = pt_of(t);
	if (pt->state == EXITED || pt->exiting || __atomic_load_n(&pt->cancel_pending, __ATOMIC_ACQUIRE)) {
		/* Nothing new for it (an earlier request did the rest). det:
		   a turn, as pthread_kill's, so a loop on it lets a sleeper
		   wake; not on a new request, whose target must not run its
		   cleanup before we return (test_cancelorder). */
		thread_turn();
		return 0;
	}
	pcancel_any = 1;
	__atomic_store_n(&pt->cancel_pending, 1, __ATOMIC_SEQ_CST);
	if (t == thread_self()) {
		if (pt->cancel_async && !pt->cancel_off)   /* (not exiting: above) */
			pcancel_act();
		return 0;
	}
	/* Woken from a park, it looks at cancel_pending itself, and as it
	   returns from the park asks for its own interrupt if the cancel is
	   asynchronous (thread_async_look): no interrupt from us, which
	   kept us here (a second system call; det: the token handed to it)
	   while it ran its cleanup, where Linux's pthread_cancel returns
	   at once (the public suite's pthread_cancel 3-1 reads the clock
	   after we return and wants the cleanup's reading later). It
	   looks if it is asynchronous: it set thread_async_used before. */
	if (thread_unpark(t))
		return 0;
	if (pt->cancel_async && !pt->cancel_off && t->ops->interrupt)
		t->ops->interrupt(t);    /* running: its package redirects it */
	return 0;
}

/* Asynchronous cancellation (thread_async_hook, <animart/thread.h>): a thread
   interrupted with a cancel due resumes here. */
static __attribute__((noreturn)) void async_cancelled(void)
{
	pcancel_act();
}

void *thread_async_hook(struct thread *t)
{
	struct pthread *pt = t->tcb ? pt_of(t) : 0;
	if (!pt || !pt->cancel_async || !pt->cancel_pending || pt->cancel_off || pt->exiting)
		return 0;
	if (t->async_hold) {             /* its node is still queued: at the wait's end */
		t->async_hold = 2;       /* (pw_done), or at the wait's own cancel check */
		return 0;
	}
	return (void *)async_cancelled;
}

int pthread_setcancelstate(int state, int *old)
{
	if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE)
		return EINVAL;
	struct pthread *pt = self_pt();
	if (old)
		*old = pt->cancel_off | pt->exiting;   /* off for good in pthread_exit */
	if (!pt->exiting)   /* seq_cst: as in pthread_setcanceltype */
		__atomic_store_n(&pt->cancel_off, state, __ATOMIC_SEQ_CST);
	if (pt->cancel_async && pcancel_pending())   /* asynchronous: at once */
		pcancel_act();
	return 0;
}

int pthread_setcanceltype(int type, int *old)
{
	if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS)
		return EINVAL;
	struct pthread *pt = self_pt();
	if (old)
		*old = pt->cancel_async;
	if (type == PTHREAD_CANCEL_ASYNCHRONOUS)
		thread_async_use();      /* first: our parks look from now on */
	/* seq_cst: a store then a load, as pthread_cancel's pending then
	   type; else each could miss the other's (x86 reorders a load
	   before an earlier store) and an asynchronous cancel wait for a
	   cancellation point */
	__atomic_store_n(&pt->cancel_async, type, __ATOMIC_SEQ_CST);   /* see thread_async_hook */
	if (type == PTHREAD_CANCEL_ASYNCHRONOUS && pcancel_pending())
		pcancel_act();
	return 0;
}

void pthread_testcancel(void)
{
	if (pcancel_pending())
		pcancel_act();
}

void __pthread_cleanup_push(struct __pthread_cleanup *c, void (*fn)(void *), void *arg)
{
	struct pthread *pt = self_pt();
	c->__fn = fn;
	c->__arg = arg;
	c->__next = pt->cleanup;
	pt->cleanup = c;
}

void __pthread_cleanup_pop(struct __pthread_cleanup *c, int execute)
{
	struct pthread *pt = self_pt();
	pt->cleanup = c->__next;
	if (execute)
		c->__fn(c->__arg);
}

/* ---- getrusage ---- */

uint64_t __cpu_time_ns(void);     /* ulib/libc/time.c */

int getrusage(int who, struct rusage *u)
{
	if (who != RUSAGE_SELF && who != RUSAGE_THREAD && who != RUSAGE_CHILDREN) {
		errno = EINVAL;
		return -1;
	}
	*u = (struct rusage){ 0 };
	if (who == RUSAGE_CHILDREN) {    /* the waited-for children's time (times' tms_cutime) */
		uint64_t c = (uint64_t)sys_getinfo(INFO_CHILD_CPU);
		u->ru_utime.tv_sec = (time_t)(c / 1000000000);
		u->ru_utime.tv_usec = (suseconds_t)(c % 1000000000 / 1000);
		return 0;
	}
	struct thread *self = thread_self();
	uint64_t v = self ? self->nvcsw : 0, iv = self ? ivcsw_of(self) : 0;
	if (who == RUSAGE_SELF) {        /* the exited threads' and ours */
		v += exited_nvcsw;
		iv += exited_nivcsw;
	}
	u->ru_nvcsw = (long)v;
	u->ru_nivcsw = (long)iv;
	/* processor time, all of it as user time: the process's, or the
	   thread's CPU clock (which counts from its first use: thread
	   clocks cost nothing until a program asks, ulib/rt/cpuclock.c) */
	uint64_t ns = __cpu_time_ns();
	struct timespec ts;
	if (who == RUSAGE_THREAD)
		ns = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) ? 0 :
		     (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	u->ru_utime.tv_sec = (time_t)(ns / 1000000000);
	u->ru_utime.tv_usec = (suseconds_t)(ns % 1000000000 / 1000);
	return 0;
}
