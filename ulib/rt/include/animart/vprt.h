/*
 * The VP runtime: everything a user-level thread package on Anima shares
 * with every other, so that a package is only its scheduling policy.
 * (Akaros's vcore/uthread layer plays this role there; here there is one
 * runtime instance per package, so several packages share a space.)
 *
 * The runtime owns VP start-up and per-VP state, the upcall entry and
 * event drain, context save/switch/resume, critical sections (software
 * interrupts off: vp_disable_save/vp_restore), the descriptor and stack
 * pool, idling and waking VPs, and the exit/join handshake. A package is a
 * `struct rtpkg`: a table of hooks (docs/thread-interface.md, "Writing a
 * policy") plus the runtime's state, and RT_PACKAGE() turns it into the
 * `struct pkg` that programs start.
 *
 * Every hook runs with software interrupts off on the calling VP, and
 * never on a thread's behalf at a moment the thread could be switched:
 * the runtime calls them from its switch paths, its scheduler loop and
 * its upcall handler only.
 */
#ifndef ULIB_VPRT_H
#define ULIB_VPRT_H

#include <stddef.h>
#include <animart/thread.h>
#include <animart/upcall.h>
#include <animart/spin.h>
#include <animart/pkg.h>

#define RT_STACK       (64 * 1024 - 16)   /* default thread stack: one malloc class */
#define RT_SCHED_STACK (64 * 1024)        /* a VP's upcall handler and scheduler loop */

/* A thread of a runtime package. */
struct uthread {
	struct thread t;             /* first: the standard descriptor */
	struct lctx lc;              /* where it resumes; lc.busy: see rotate */
	struct uthread *next;        /* the policy's queue link */
	void *(*fn)(void *);
	void *arg;
	char *stack;                 /* its own (0: it runs on the program's, thread_attr.stack_addr) */
	uint64_t stack_size;
	struct uctx ctx;             /* full context (interrupted, or from the kernel) */
	uint8_t fpu[FPU_IMAGE];      /* its FPU state, copied from the VP page's FXSAVE image */
	/* CPU time (thread CPU clocks, rt_switch.c), kept once rt_cputime_on:
	   the stints it ran, each the CPU time of the VP that ran it from
	   switch-in to switch-out. Written only by the VP running or
	   switching the thread; cpu_seq is odd while it does, for readers on
	   other VPs. */
	volatile uint32_t cpu_seq;
	volatile uint64_t cpu_ns;    /* its finished stints */
	volatile uint64_t cpu_in;    /* the VP's CPU time as this stint began (0: none counted) */
	volatile uint64_t cpu_owner; /* the thread id these figures are of (a reused
					descriptor's are an earlier thread's until charged) */
	const struct pseudo_page *volatile cpu_pp;   /* that VP's pseudo-register page */
	/* A timed wait on an upcall VP (rt_tq.c): its place in the timer
	   queue of the VP it began on, under that VP's tq_lock. */
	struct uthread *tq_next, *tq_prev;
	struct rtvp *volatile tq_vp; /* the VP whose queue holds it (0: none) */
	uint64_t tq_due;             /* its deadline on the boot clock */
	uint64_t tq_dl;              /* as given (a DL_REALTIME time kept) */
	volatile int tq_out;         /* why the queue let it go (rt_tq.c) */
	/* A timed wait on a classic VP (rt_block_until): its deadline on the
	   boot clock while it waits queued (0: none), so that another such
	   waiter does not take it for work (rt_switch.c, yield_worth). */
	volatile uint64_t tw_due;
};

struct rtpkg;

/* The real-time band (rt_band.c) of a policy without priorities: the
   runnable threads above level 0 (struct thread.prio: SCHED_FIFO/RR),
   highest first, FIFO within a level, taken before any of the policy's
   own (level 0). Installed once a thread of the package first gets a
   level above 0 (rt_band_need): its hooks then sit in front of the
   policy's, which it keeps here, so a program of level-0 threads runs
   the policy's own paths, with nothing added. */
struct rtband {
	struct spin lock;
	struct uthread *head;        /* linked by next */
	volatile int top;            /* head's level; 0: empty */
	volatile int on;
	struct rtvp *(*enqueue)(struct rtvp *v, struct uthread *t, int why);
	struct uthread *(*pick)(struct rtvp *v, struct uthread *cur);
	int (*preempt)(struct rtvp *v, struct uthread *cur);
	int (*sliced)(struct uthread *cur);
	void (*yield)(struct thread *self);
};

/* A VP of a runtime package. A policy with per-VP data makes it the
   first member of its own struct and sets rtpkg.vp_size. */
struct rtvp {
	/* The VP's local run queue, for policies that keep one per VP
	   (rt_lq_*, rtpkg.local_yield). Circular: lq_tail->next is its head,
	   so a push, a pop and the yield's rotation start from one pointer.
	   First: the fast yield takes the lock at offset 0. */
	struct spin lq_lock;
	volatile int lq_len;
	struct uthread *lq_tail;
	struct rtpkg *pkg;
	struct vp_page *vpp;
	int index;                   /* VP index in the space */
	volatile int idle;           /* in the idle wait: wake it to run threads */
	struct uthread *prev;        /* the thread that just left this VP ... */
	int prev_action;             /* ... and why (finish_switch) */
	int looked;                  /* it parked, having found no thread to run (rt_block) */
	char *sched_stack;           /* the scheduler loop's stack */
	struct lctx sched;           /* entry into the scheduler loop */
	uint64_t wait_due;           /* classic: the deadline its one-shot timer is set for (rt_due.c) */
	uint64_t arm_ns;             /* classic: what setting that timer cost of late (rt_due.c) */
	/* Upcall VPs: the timer queue of timed waits begun here, by
	   deadline, and the one kernel timer it shares with the policy's
	   (rt_tq.c). */
	struct spin tq_lock;
	struct uthread *tq_head, *tq_tail;
	int tq_nrt;                  /* DL_REALTIME waits in it */
	int64_t tq_off;              /* the realtime offset they were converted at */
	uint64_t tq_armed, tq_flag;  /* the kernel timer: when (0: not armed), TIMER_RTSET */
	uint64_t pol_at, pol_token;  /* the policy's one-shot (rt_timer; 0: none) */
	volatile int tq_lost;        /* arming failed (-EAGAIN): again before idling */
	/* Time slices (rtpkg.slice_ns, rt_tq.c): the slice's end (0: none
	   set), the thread its last end turned out (0: none), and whether
	   one ended since the VP last ran a thread from its scheduler loop
	   (rt_run_thread). A classic
	   VP's slice ends at slice_cpu of its CPU time (rt_due.c); slice_at
	   is then when that can come at the earliest. */
	uint64_t slice_at, slice_cpu;
	struct uthread *slice_from;
	int slice_ended;
	int tq_firing;               /* rt_tq_fire holds tq_lock (its wake-ups enqueue) */
};

/* Why a thread is handed to enqueue */
enum {
	RQ_NEW,                      /* created */
	RQ_YIELD,                    /* it yielded (or a park was cancelled by a permit) */
	RQ_UNBLOCK,                  /* unblocked, or back from a blocking call */
	/* from here on: taken off its VP by the runtime at an upcall */
	RQ_PREEMPTED,                /* the kernel preempted its VP (EV_PREEMPTED) */
	RQ_WARNED,                   /* its VP was warned and gives itself up */
	RQ_RESCHED,                  /* the policy asked to switch it out (event, preempt) */
};

struct rt_stats {                /* racy counters: for reports only */
	uint64_t blocked, unblocked, warnings, warn_yields, warn_deferred, preempted;
	uint64_t resched, idles;
};

struct rtpkg {
	struct thread_ops ops;       /* first: RT_OPS(name) */

	/* ---- the policy ---- */
	size_t vp_size;              /* sizeof its per-VP struct (0: struct rtvp) */
	int classic;                 /* 1: classic VPs (no upcalls; blocking blocks the VP) */
	uint64_t *stack_size;        /* its default thread stack (0: RT_STACK) */
	/* A VP joins the package (set warn_ns, want_preempted, per-VP data). */
	void (*init_vp)(struct rtvp *v);
	/* Make t runnable. v: the calling VP if it is one of this package's,
	   else 0. Returns the VP that should run it soon (the runtime wakes it
	   if it idles, else some idle VP), or 0 for "any". */
	struct rtvp *(*enqueue)(struct rtvp *v, struct uthread *t, int why);
	/* The next thread to run on v, taken off the queues; 0 if none. cur:
	   the thread that yields (it stays runnable: return 0 to keep it
	   running, e.g. when only lower priorities wait), else 0. */
	struct uthread *(*pick)(struct rtvp *v, struct uthread *cur);
	/* 1: the yield fast path swaps the yielding thread with the head of
	   its VP's local queue (rt_lq_*) under one lock round trip, queueing
	   it before the switch with lc.busy set; when that queue is empty (or
	   its lock taken), yield takes the slow path (pick). So enqueue(RQ_UNBLOCK)
	   must use the local queue of the VP the thread last ran on
	   (t->t.vpp): a busy thread is then only ever in the local queue of
	   the VP running its switch, and a VP that takes threads from another
	   VP's local queue must use rt_lq_pop(w, 1), which skips busy ones. */
	int local_yield;
	/* Optional yield fast path for other queues: queue self (marked busy
	   by the runtime until it is off its stack) and return the thread to
	   run instead, in one step; 0: self runs on (nothing queued). */
	struct uthread *(*yield_swap)(struct rtvp *v, struct uthread *self);
	/* Optional: an event the runtime does not handle (EV_TIMER, EV_SIGNAL)
	   for v, which runs cur (0 if none). Nonzero: switch cur out. */
	int (*event)(struct rtvp *v, struct uthread *cur, const struct event *e);
	/* Optional: the policy's one-shot (rt_timer) fired, on v running cur
	   (0 if none), for a policy with no time slices (prio's real-time
	   throttle): with it, event does not get that timer, and a timed
	   wait's end is still a turn (rt_due.c). Nonzero: switch cur out. */
	int (*timer)(struct rtvp *v, struct uthread *cur, uint64_t token);
	/* Optional: after the events of an upcall that interrupted cur at a
	   safe point: nonzero to switch it out (user-level preemption). */
	int (*preempt)(struct rtvp *v, struct uthread *cur);
	/* Optional: t's priority becomes prio; if t is in a run queue, move
	   it to prio's place (thread_ops.setprio). 0: only the field. */
	void (*reprio)(struct uthread *t, int prio);
	/* Optional: v is about to run threads (from its scheduler or an upcall). */
	void (*on_run)(struct rtvp *v);
	struct rt_stats *stats;      /* optional counters */
	/* Optional: in a fork's child, empty the policy's own queues (the
	   other threads are gone); the runtime resets its part. */
	void (*fork_reset)(void);
	/* Optional time slices (rt_tq.c): a thread that runs slice_ns while
	   another is runnable yields to it (0: no slices; enqueue then calls
	   rt_slice_note). */
	uint64_t slice_ns;
	/* Optional: is cur sliced (0: it runs on, prio's real-time levels)? */
	int (*sliced)(struct uthread *cur);
	/* 1: no real-time band (rt_band.c): the policy has an order of its
	   own that the band would break (det's token). A policy with
	   priorities (reprio: prio) never gets one either. */
	int no_band;

	/* ---- the runtime's state (zero at start) ---- */
	struct rtvp *vps[MAXVP];     /* the package's VPs, in joining order */
	volatile int nvps;
	volatile int started;        /* some VP runs the package, or is coming */
	struct spin vps_lock;        /* adding to vps[] */
	struct spin pool_lock;       /* taking from the pool (rt_free pushes without) */
	struct uthread *pool;        /* finished descriptors (with their stacks) */
	volatile uint32_t wake_seq;  /* classic VPs idle on this futex */
	volatile int nidle;
	int ncpu;
	struct rtband band;          /* (rt_band.c) */
};

/* Settings and counters of every runtime package (ulib/rt/rt_sched.c). */
extern uint64_t rt_idlespin_ns;  /* an idle VP watches for work this long first (0: never) */
extern uint64_t rt_idle_calls;   /* times a VP idled in the kernel (SYS_vp_idle) */

/* Descriptors at their exact size, never freed (ulib/rt/desc.c): a
   zeroed one or 0; and one given back before anyone saw it. */
#define RT_DESC_SIZE ((sizeof(struct uthread) + 15) & ~(size_t)15)
struct uthread *rt_desc_new(void);
void rt_desc_fork(int phase);            /* fork holds desc.c's lock across the copy */
void rt_desc_drop(struct uthread *t);

/* The thread_ops of every runtime package (ulib/rt_*.c). */
void rt_block(struct thread *self);
/* rt_block without its look for an asynchronous cancel (thread_async_back),
   for a package's own longer waits built on it (block_until, det=par's
   token): their caller looks once the whole wait is done. */
void rt_park(struct thread *self);
void rt_unblock(struct thread *t);
void rt_yield(struct thread *self);
__attribute__((noreturn)) void rt_exit(struct thread *self);
void rt_free(struct thread *t);
int rt_block_until(struct thread *self, uint64_t deadline);
int rt_yield_other(struct thread *self);
void rt_due_arm(uint64_t deadline);     /* rt_due.c */
int rt_tq_wait(struct uthread *self, uint64_t deadline);   /* rt_tq.c */
int rt_due_passed(void);
void rt_interrupt(struct thread *t);
int64_t rt_cputime(struct thread *t);
void rt_setprio(struct thread *t, int prio);
/* A thread of p gets a level above 0 (rt_create's attributes,
   rt_setprio; software interrupts off): install p's real-time band if
   it has none and may (rt_band.c). */
void rt_band_install(struct rtpkg *p);
static inline void rt_band_need(struct rtpkg *p)
{
	if (__builtin_expect(!p->band.on, 0))
		rt_band_install(p);
}
void rt_band_fork(struct rtpkg *p);
/* Set once a classic package has a band: intr_run asks it whether a
   higher level than the interrupted thread's waits. */
extern int (*rt_band_intr)(struct thread *t);
void rt_fork_child(struct thread *self);
/* RT_OPS(name) or RT_OPS(name, .wait_first = f): a package adds the
   optional thread_ops the runtime has no routine for. */
#define RT_OPS(nm, ...) { .name = (nm), .block = rt_block, .unblock = rt_unblock, \
		     .block_until = rt_block_until, .interrupt = rt_interrupt, \
		     .yield = rt_yield, .exit = rt_exit, .free = rt_free, \
		     .cputime = rt_cputime, .setprio = rt_setprio, \
		     .fork_child = rt_fork_child, .yield_other = rt_yield_other, __VA_ARGS__ }

/* struct pkg's routines, for RT_PACKAGE. */
__attribute__((noreturn)) void rt_run(struct rtpkg *p, int nvp, void *(*fn)(void *), void *arg);
struct thread *rt_create(struct rtpkg *p, void *(*fn)(void *), void *arg,
			 const struct thread_attr *attr);
int rt_add_vps(struct rtpkg *p, int n);

/*
 * Define the package's `struct pkg` (named by the build after the
 * package's folder: PKG_SELF, PKG_NAME) from its struct rtpkg `rt`.
 * attrs: PKG_ATTR_* it honors besides PKG_ATTR_STACK (the runtime's).
 */
#define RT_PACKAGE(rt, honors)                                                      \
	static __attribute__((noreturn)) void rt##_run(int n, void *(*f)(void *), void *a) \
	{ rt_run(&rt, n, f, a); }                                               \
	static struct thread *rt##_create(void *(*f)(void *), void *a,          \
					  const struct thread_attr *at)         \
	{ return rt_create(&rt, f, a, at); }                                    \
	static int rt##_add_vps(int n) { return rt_add_vps(&rt, n); }           \
	const struct pkg PKG_SELF = { .name = PKG_NAME, .run = rt##_run,        \
		.create = rt##_create, .add_vps = rt##_add_vps,                 \
		.attrs = PKG_ATTR_STACK | (honors) }

/* ---- for policies ---- */

/* The runtime VP of package p that the caller runs on, or 0. */
static inline struct rtvp *rt_vp_here(struct rtpkg *p)
{
	struct rtvp *v = vp_pkg(vp_self());
	return v && v->pkg == p ? v : 0;
}

/* The VP of package p behind VP page vpp (a thread's t.vpp), or 0. */
static inline struct rtvp *rt_vp_of(struct rtpkg *p, struct vp_page *vpp)
{
	struct rtvp *v = vpp ? vp_pkg(vpp) : 0;
	return v && v->pkg == p ? v : 0;
}

/* The thread v runs now (0 if none): racy when v is not the caller's. */
static inline struct uthread *rt_running(struct rtvp *v)
{
	return (struct uthread *)__atomic_load_n(&v->vpp->current_thread, __ATOMIC_RELAXED);
}

/* The policy's one-shot timer on v, the calling VP (software interrupts
   off): at `at` (ns since boot; 0 cancels) the policy's event hook gets
   an EV_TIMER with `token`. Use it, not SYS_timer: the VP's one kernel
   timer also serves the timed waits' queue (rt_tq.c). */
void rt_timer(struct rtvp *v, uint64_t at, uint64_t token);

/* Send v an EV_SIGNAL: it wakes if idle, or takes an upcall (preempt). */
void rt_kick(struct rtvp *v);

/* A thread in the middle of switching off its stack (local_yield's). */
static inline int rt_busy(struct uthread *t)
{
	return __atomic_load_n(&t->lc.busy, __ATOMIC_ACQUIRE);
}

/* Queue t on v's local queue, at the tail or the head. */
static inline void rt_lq_push(struct rtvp *v, struct uthread *t, int at_head)
{
	spin_lock_by(&v->lq_lock, 0);
	struct uthread *tail = v->lq_tail;
	if (!tail)
		v->lq_tail = t->next = t;
	else {
		t->next = tail->next;
		tail->next = t;
		if (!at_head)
			v->lq_tail = t;
	}
	v->lq_len++;
	spin_unlock_by(&v->lq_lock, 0);
}

/* Take the head of v's local queue, or 0. A VP taking from another's
   (`other`) leaves a head that is still leaving its stack there: waiting
   for it could mean waiting for a vCPU the host has descheduled. */
static inline struct uthread *rt_lq_pop(struct rtvp *v, int other)
{
	if (!v->lq_len)
		return 0;
	spin_lock_by(&v->lq_lock, 0);
	struct uthread *tail = v->lq_tail, *t = tail ? tail->next : 0;
	if (t && other && rt_busy(t))
		t = 0;
	if (t) {
		if (t == tail)
			v->lq_tail = 0;
		else
			tail->next = t->next;
		v->lq_len--;
	}
	spin_unlock_by(&v->lq_lock, 0);
	return t;
}

/* Take the tail of v's local queue (the thread queued last), or 0: for
   moving a thread to another queue without taking anyone's turn (the
   head has waited longest; moved to another queue's tail, it would wait
   again, and a thread moved each time it came to the head never ran).
   Walks the ring to the tail's predecessor: balancing is once a slice. */
static inline struct uthread *rt_lq_pop_tail(struct rtvp *v, int other)
{
	if (!v->lq_len)
		return 0;
	spin_lock_by(&v->lq_lock, 0);
	struct uthread *t = v->lq_tail;
	if (t && other && rt_busy(t))
		t = 0;
	if (t) {
		struct uthread *p = t->next;
		if (p == t)
			v->lq_tail = 0;
		else {
			while (p->next != t)
				p = p->next;
			p->next = t->next;
			v->lq_tail = p;
		}
		v->lq_len--;
	}
	spin_unlock_by(&v->lq_lock, 0);
	return t;
}

/* ---- between the runtime's own files (ulib/rt_*.c) ---- */
/* Wake a VP to run a thread just queued for `to` (0: any), unless it is
   the caller's own (rt_make_runnable's slow half: some VP idles). */
void rt_wake_idle(struct rtpkg *p, struct rtvp *to);

void rt_slice_start(struct rtvp *v);   /* rt_tq.c */
void rt_due_slice(struct rtvp *v);     /* rt_due.c */
int rt_slice_passed(void);

/* A policy with time slices (rtpkg.slice_ns) calls it as its enqueue
   queues a thread: one waits now, so the thread on v (the calling VP,
   enqueue's v) gets a slice, if none is set. Called by the policy, not
   the runtime, so that a package without slices pays nothing. */
static inline void rt_slice_note(struct rtvp *v)
{
	if (v && !v->slice_at)
		rt_slice_start(v);
}

/* Queue t on p's queues and wake a VP to run it (software interrupts
   off). v: the calling VP, rt_vp_here(p), as enqueue takes it. */
static inline void rt_make_runnable(struct rtpkg *p, struct rtvp *v, struct uthread *t, int why)
{
	/* Another thread waits on v now: if the pick gives v back the
	   thread a slice's end turned out, it must keep its slice
	   (rt_run_thread). A sleeper whose wake-up came between that
	   thread's requeue and the pick was queued behind it, and the
	   thread, sliced no more, kept the VP for good (slicesleep). */
	if (v && __builtin_expect(v->slice_from != 0, 0) && v->slice_from != t)
		v->slice_from = 0;
	struct rtvp *to = p->enqueue(v, t, why);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* pairs with the idle loop's */
	if (p->classic) {
		__atomic_fetch_add(&p->wake_seq, 1, __ATOMIC_RELEASE);
		if (__atomic_load_n(&p->nidle, __ATOMIC_ACQUIRE))
			syscall2(SYS_futex_wake, &p->wake_seq, 1);
		return;
	}
	/* The VP it was queued for if it idles; else some idle VP, which
	   takes it (or, with per-VP queues, steals it). Out of line, and
	   without v (rt_wake_idle finds it again): so that the usual case,
	   nobody idles, keeps nothing but p live across enqueue. */
	if ((to && to->idle) || __atomic_load_n(&p->nidle, __ATOMIC_ACQUIRE))
		rt_wake_idle(p, to);    /* (the fence orders these loads) */
}

void rt_finish_prev(struct rtvp *v);
static inline void rt_finish_switch(struct rtvp *v)
{
	if (v->prev)
		rt_finish_prev(v);
}
/* Thread CPU clocks: off (0) until a program first asks for one
   (rt_cputime); then every switch charges the thread leaving the VP and
   stamps the one arriving. Off, the yield's fast path pays a compare and
   a branch, set_current (rt_switch.c) an `or` with its busy test. */
extern int rt_cputime_on;
/* Is it on? One compare with memory and the branch (GCC loaded the flag
   and tested it: a third instruction on every switch, and make bench
   counts the yield). */
#define RT_CPUTIME_ON() ({ int __on; \
	__asm__("cmpl $0, %1" : "=@ccne"(__on) : "m"(rt_cputime_on)); \
	__builtin_expect(__on, 0); })
void rt_cpu_charge(struct uthread *out, struct uthread *in);
static inline __attribute__((always_inline)) void rt_cpu_switch(struct uthread *out, struct uthread *in)
{
	if (RT_CPUTIME_ON())
		rt_cpu_charge(out, in);
}

void rt_make_full(struct uthread *t);
__attribute__((noreturn)) void rt_run_thread(struct rtvp *v, struct uthread *t);
void rt_sched_enter(struct rtvp *v, struct lctx *from);
void rt_upcall(struct vp_page *vpp, struct pseudo_page *pp);
/* rt_tq.c: v's kernel timer fired with the queue's token (drain):
   TQ_WOKE if it ended a timed wait, TQ_RESCHED if the policy's event
   (its rt_timer's) wants cur switched out. */
#define TQ_TOKEN   0x7274746d72717565UL   /* "rttmrque" */
#define TQ_WOKE    1
#define TQ_RESCHED 2
#define TQ_SLICE   4               /* a time slice ended (rtpkg.slice_ns) */
int rt_tq_fire(struct rtvp *v, struct uthread *cur, const struct event *e);
void rt_tq_rearm(struct rtvp *v);
/* Have context c of interrupted thread t resume where thread_async_hook
   says, if anywhere (an asynchronous cancel; t outside any spin lock). */
void rt_async_redirect(struct uctx *c, struct thread *t);

#endif
