/*
 * The standard thread-package interface (docs/thread-interface.md).
 *
 * Every package's threads begin with a struct thread, whose first field
 * points at the package's operations. So code holding any thread pointer
 * can block or unblock it without knowing its package: a mutex released
 * by a thread of one package wakes a waiter of another. The current
 * thread is the VP page's current_thread, found in two loads on any VP
 * (%gs -> pseudo-register page -> VP page -> current_thread).
 *
 * Blocking follows park/unpark: thread_unblock() leaves a permit if the
 * target is not (yet) blocked, and thread_block() consumes a permit
 * instead of blocking. Lost wake-ups are therefore impossible, and
 * callers must tolerate early returns: wait in a loop on a condition.
 */
#ifndef ULIB_THREAD_H
#define ULIB_THREAD_H

#include <stdint.h>
#include <animart/upcall.h>
#include <anima/errno.h>

struct thread;

struct thread_ops {
	const char *name;
	/* Switch away from `self` (the calling thread) until it is unblocked.
	   Must publish the block with thread_park_commit(self) only once
	   self's context is saved, or with self marked busy so nobody runs
	   it before it is off its stack; if that fails, a permit came (now
	   consumed): continue. Back from a park (after its switch, not on
	   a permit's fast path), it calls thread_async_back(self). */
	void (*block)(struct thread *self);
	/* Make t runnable again (t was parked). Called from any thread of any
	   package, on any VP, and from upcall handlers. */
	void (*unblock)(struct thread *t);
	void (*yield)(struct thread *self);
	/* End self; never returns. Once self has left its stack for good,
	   the package calls thread_exited(self), which publishes the exit and
	   wakes the joiner: so the joiner never waits for the exiting thread
	   to get a processor again (with a higher-priority joiner, waiting
	   would be a livelock). */
	__attribute__((noreturn)) void (*exit)(struct thread *self);
	/* Reclaim a finished thread (called once, by thread_join, after
	   thread_exited: t is off its stack, nothing to wait for). */
	void (*free)(struct thread *t);
	/* Optional: thread_block_until for self (0: thread_park_timed, which
	   sleeps in the kernel on the park word: right for every package
	   whose kernel blocks only the thread, i.e. upcall VPs and kthread). */
	int (*block_until)(struct thread *self, uint64_t deadline);
	/* Optional: have t's package look at t soon even if t never blocks
	   nor yields (an upcall on its VP, which asks the hook
	   thread_async_hook): asynchronous cancellation. 0: it looks only
	   when t next stops by itself. */
	void (*interrupt)(struct thread *t);
	/* Optional: t's CPU time in ns (t the caller, or another live thread
	   of the package), or -1 if the package cannot say. The first call
	   may turn the package's accounting on (docs/libc.md, thread CPU
	   clocks): until then it need not keep any. 0: no thread CPU clocks. */
	int64_t (*cputime)(struct thread *t);
	/* Optional: t's priority (struct thread.prio) becomes prio while t
	   may sit in a run queue, which must then put it where prio belongs
	   (priority inheritance boosts a waiting-to-run holder). 0: the
	   field is set, read at t's next enqueue. */
	void (*setprio)(struct thread *t, int prio);
	/* Optional: whether waiter a is to be woken before waiter b, asked
	   when a (a thread of this package) queues on a blocking object
	   others already wait on (<animart/waitq.h>); a goes before the
	   first such b. 0: FIFO. */
	int (*wait_first)(const struct thread *a, const struct thread *b);
	/* Optional: in the child of a fork (ulib/libc/proc.c), self is the
	   only thread, on the space's one VP (index 0, its VP page fresh):
	   make the package run on that VP with self as its running thread,
	   forgetting every other thread and VP. 0: fork is ENOSYS. */
	void (*fork_child)(struct thread *self);
	/* Optional: 1 if block_until alone decides when a deadline has
	   passed, on a clock of its own (det's logical time): callers then
	   do not return early by now_ns() before calling it. */
	int own_time;
	/* Optional: switch to another thread runnable on self's VP, if there
	   is one: 1 once self runs again, 0 at once if there is none. A wait
	   that would block a classic VP whole in the kernel (a read of a pipe
	   another process holds: ulib/libc/pipe.c) waits at user level while
	   other threads can run, and in the kernel only once none can. 0: no
	   other thread shares the VP (kthread, det's token holder). */
	int (*yield_other)(struct thread *self);
	/* Optional: self just did a signal operation that neither blocked
	   nor yielded (pthread_kill, raise, kill, pthread_sigmask:
	   thread_turn): a turn, if the package passes a token at such points
	   (det, det=par), so a thread that loops on them while another sleeps
	   lets it run. (Synchronizations reach det through its fence hook:
	   FENCED_SYNC.) 0: nothing (the cost is a load and a compare). */
	void (*turn)(struct thread *self);
};

/* Where an interrupted thread t should resume instead of where it was
   (0: where it was): the POSIX layer's asynchronous cancellation
   defines it (weak: a program without the layer has none). Packages ask
   it when an upcall interrupts t outside any spin lock. */
__attribute__((weak)) void *thread_async_hook(struct thread *t);

/* Run the signal handlers waiting for the calling thread t (whose
   sigpend was set), as if it had called them where it was interrupted:
   ulib/libc/signal.c defines it (weak: a program without signals has none).
   Packages call it only outside spin locks and the layer's waits. */
__attribute__((weak)) void thread_signal_hook(struct thread *t);

/* Signals from other processes may wait in the kernel and no thread can
   look here (a VP's idle loop, or an interrupt of a classic VP whose
   thread is blocked): take them and wake, for each, a thread that does
   not block it (ulib/libc/signal.c; weak). How many were woken, or -1
   if it cannot look now (try again after other work). */
__attribute__((weak)) int thread_signal_dispatch(void);

/* Nonzero while the program has a signal pending that no known thread
   was given (ulib/libc/signal.c): a thread interrupted meanwhile runs
   thread_signal_hook, which takes it if the thread does not block it. */
extern volatile int thread_proc_sigs;
/* Nonzero when the kernel may hold signals from other processes for the
   program (EV_PSIG, or a classic VP's interrupt): the next thread that
   looks takes them (SYS_sigtake, ulib/libc/signal.c); 2 while a take's
   records are not yet pending there. */
extern volatile int thread_kern_sigs;

/* How many signals from other processes the program has taken (counted
   as each is taken, before it is posted): det=par tells them from its
   own, which must not cut its waits short (threadpkgs/det/par.c). */
extern volatile unsigned thread_outside_sigs;

#define SIGPEND_WAITING 1   /* struct thread.sigpend */
#define SIGPEND_RAN     2

/* The same for a wait that woke with sigpend set (ulib/pthread/pwait.h):
   run the handlers now, in the caller t's own context (ulib/libc/signal.c;
   weak). Returns SIGW_* of what ran, for the wait to go on or end. */
__attribute__((weak)) int __sig_in_wait(struct thread *t);
#define SIGW_RAN  1         /* a handler ran ... */
#define SIGW_INTR 2         /* ... one without SA_RESTART: sem_wait ends, EINTR */

/* park states */
#define PARK_RUN     0     /* running or runnable, no permit */
#define PARK_PERMIT  1     /* an unblock arrived before the block */
#define PARK_PARKED  2     /* blocked: the next unblock must requeue it */
#define PARK_TIMED   3     /* in thread_block_until: asleep in the kernel on the
			      park word; the next unblock moves it to RUN and
			      wakes the futex (no package routine involved) */
#define PARK_KWAIT   4     /* asleep in the kernel on another word, cut by this one
			      (SYS_futex_wait_cut: ulib/pthread/pshared.c's waits);
			      the next unblock moves it to RUN and cuts the wait
			      short (SYS_wait_cut): a signal, a cancel */

#define JOIN_DONE    1UL   /* thread->join once the thread has exited */

struct thread {
	const struct thread_ops *ops;    /* first: the package's routines */
	struct vp_page *vpp;             /* the VP it runs (or last ran) on */
	volatile int park;               /* PARK_* */
	/* A signal handler waits for this thread (ulib/libc/signal.c sets it, and
	   asks its package to interrupt it): a runtime package runs
	   thread_signal_hook in it when it next resumes it from an
	   interrupted context, and at an upcall that interrupts it (rt_sched.c,
	   rt_switch.c). SIGPEND_WAITING: a handler waits; above it, how many
	   times handlers ran that way (SIGPEND_RAN each), so that a sleep
	   they interrupted still ends with EINTR. In what was padding: struct
	   thread keeps its size. */
	volatile int sigpend;
	volatile uint64_t join;          /* 0, JOIN_DONE, or the joining thread; the thread
					    itself once the POSIX layer joined or reaped it */
	void *retval;
	uint64_t id;
	void *pkg;                       /* the package's own per-thread data */
	volatile int crit;               /* spin locks held (struct spin, <animart/spin.h>) */
	volatile int yield_due;          /* YIELD_DUE_*: a switch deferred while crit > 0 */
	union {                          /* (sched: both at once, as thread_init sets them) */
		struct {
			volatile int16_t prio;   /* priority (THREAD_PRIO_*); packages without
						    priorities ignore it */
			int16_t rr;              /* SCHED_RR: time-sliced among its level
						    (prio); SCHED_FIFO's never are. Half of
						    prio's old int: struct thread keeps its size */
		};
		int sched;
	};
	/* Nonzero while the thread must not be ended where it runs, though
	   outside any spin lock: a wait of ulib/posix has its node, on the
	   thread's stack, on a queue (1); 2: thread_async_hook held an end
	   back meanwhile, and the wait's end asks again (ulib/pthread/pwait.h). */
	volatile int async_hold;
	/* Switches, for getrusage (racy counters): voluntary ones (it
	   blocked: thread_block, thread_block_until) and involuntary ones
	   (taken off its VP at an upcall: preempted, warned, rescheduled). */
	uint64_t nvcsw, nivcsw;
	/* Its TLS block's TCB (<animart/tls.h>), set by the package at creation
	   where TLS is on (0 otherwise): how the POSIX layer finds a
	   thread's own state from a struct thread, before it even runs. */
	void *tcb;
	/* Its alternate signal stack, [alt_lo, alt_hi) (0, 0: none; set by
	   sigaltstack, ulib/libc/signal.c): where a fault's frame goes when
	   the handler asks for it (ulib/rt/fault.c, intr.S), read with the
	   thread stopped, so without a lock. */
	uint64_t alt_lo, alt_hi;
};

/* yield_due: what spin_unlock does when the last spin lock goes */
#define YIELD_DUE_VP     1   /* a preemption warning: give up the VP */
#define YIELD_DUE_THREAD 2   /* a user-level reschedule: thread_yield() */
#define YIELD_DUE_INTR   3   /* no switch: an interrupt found an asynchronous
				cancel or a signal handler due inside a spin
				lock (spin_defer_intr, ulib/rt/spin.c) */

/* Priorities: higher runs first (in packages that have them). One level
   per Linux priority: 0 for SCHED_OTHER (and BATCH, IDLE), 1..99 for
   SCHED_FIFO/SCHED_RR 1..99 (ulib/pthread/pt.h, pt_level). */
#define THREAD_PRIO_MIN  0
#define THREAD_PRIO_MAX  99
#define THREAD_NPRIO     100

/* Attributes at creation (struct pkg's create); 0 fields mean defaults. */
struct thread_attr {
	int prio;                        /* THREAD_PRIO_MIN..MAX (default MIN) */
	uint64_t stack_size;             /* bytes (default: the package's); may
	                                    carry STACK_GUARD (a pthread_attr_t's
	                                    guard size), which rt_vp.c and kthread
	                                    keep through their rounding */
	/* Optional: the program's memory to run on, stack_size bytes from
	   here (pthread_attr_setstack): the TLS block goes at its top, and
	   the package never frees it. 0: the package allocates. Packages
	   that cannot take one allocate as usual. */
	void *stack_addr;
};

/* Change t's priority, through its package if it has a say (setprio). */
static inline void thread_set_prio(struct thread *t, int prio)
{
	if (t->ops->setprio)
		t->ops->setprio(t, prio);
	else
		t->prio = prio;
}

/* Thread stacks (ulib/rt/stack.c): up to STACK_SMALL bytes a malloc block,
   larger ones a demand-zero mapping with an unmapped page below it. */
#define STACK_SMALL (64 * 1024)
/* A flag in a stack size: mapped like a large one, whatever its size, so
   that the page below it is unmapped (thread_attr.stack_size). A package
   keeps it in the size it pools by, and gives STACK_BYTES to tls_place. */
#define STACK_GUARD (1UL << 62)
#define STACK_BYTES(size) ((size) & ~STACK_GUARD)
void *stack_alloc(uint64_t size);
void stack_free(void *stack, uint64_t size);
/* The program's default stack for a thread created with no stack_size
   (its first thread too): 0 leaves it to each package. The POSIX start
   sets glibc's 8 MiB (docs/posix.md). */
extern uint64_t thread_stack_default;

/* The calling thread (0 if the VP runs no package thread). */
static inline struct thread *thread_self(void)
{
	/* One %gs load (GS_VPPAGE), not two: between loading the VP page's
	   address and its current_thread an upcall could move the caller to
	   another VP, and the second load would name that VP's thread. */
	struct thread *t;
	__asm__ volatile("mov %%gs:%c1, %0" : "=r"(t) : "i"(GS_VPPAGE + VPP_CURRENT));
	return t;
}

/* thread_block with a deadline (ns since boot, SYS_time's clock; 0: none):
   0 if unblocked (or a stale permit: loop on the condition, as for
   thread_block), -ETIMEDOUT once the deadline has passed with no unblock.
   An unblock racing with the timeout is never lost: it either ends the
   wait (0) or leaves a permit for the next block. */
int thread_block_until(uint64_t deadline);
/* The default block_until: PARK_RUN -> PARK_TIMED, then a futex wait on
   t->park with a timeout; for packages, whose block_until may use it. */
int thread_park_timed(struct thread *self, uint64_t deadline);
/* After a kernel wait on *w for v returned r: if the kernel refused it
   (-EAGAIN, the space's MAXKOP_SPACE blocked calls out) and *w still
   holds v, yield to the package's other threads before the caller waits
   again (thread.c). Inline: a wait not refused pays a compare, no call
   (xbench's kthread xsem signal-wait 1745 -> 1736 instructions). */
void thread_wait_yield(volatile void *w, uint32_t v);
static inline void thread_wait_refused(volatile void *w, uint32_t v, long r)
{
	if (__builtin_expect(r == -EAGAIN, 0))
		thread_wait_yield(w, v);
}
/* Make t runnable (or leave it a permit if it runs). */
void thread_unblock(struct thread *t);
/* The same, and 1 if this took t out of a park of thread_block or
   thread_block_until (PARKED, TIMED), after which t looks for an
   asynchronous cancel itself (thread_async_back) if thread_async_used,
   else 0: for pthread_cancel. */
int thread_unpark(struct thread *t);
/* Set for good once a thread of the program turns on asynchronous
   cancelability (pthread_setcanceltype: thread_async_use, by the thread
   itself before the type takes effect, so every park it makes as such a
   thread sees it). From then on a thread back from a park asks for its
   own interrupt if an asynchronous cancel is due (thread_async_look).
   So pthread_cancel, which woke it, sends none and returns right after
   the wake-up, as Linux's (one tgkill) does, and the woken thread, not
   the canceller, pays for the interrupt. */
extern volatile int thread_async_used;
/* Nonzero once a switch has rare work: thread_async_used, or the VP
   runtime's thread CPU clocks (rt_cputime_on). The runtime's switches
   test it with the busy flag they test anyway (set_current), so
   rt_block's common path pays nothing for either. */
extern int thread_switch_rare;
void thread_async_use(void);
void thread_async_look(struct thread *self);
/* For packages: self is back from a park, after its switch (block's
   slow path, enabled; block_until's callers do it themselves). Not on
   thread_block's inline path: there it cost every block, the permit's
   too, its tail call (fifo signal-wait 290 -> 302 instructions); the
   VP runtime's rt_block looks only on its rare path, which
   thread_switch_rare sends it to. */
static inline void thread_async_back(struct thread *self)
{
	if (__builtin_expect(thread_async_used, 0))
		thread_async_look(self);
}
/* Inline: a yield is one indirect call into the thread's own package. */
static inline void thread_yield(void)
{
	struct thread *self = thread_self();
	self->ops->yield(self);
}
/* The end of a synchronization or signal operation (thread_ops.turn). */
static inline void thread_turn(void)
{
	extern int thread_pkgs_on;
	if (!thread_pkgs_on)             /* a program that runs its VPs itself (evtest):
					    current_thread is not a struct thread */
		return;
	struct thread *self = thread_self();
	if (__builtin_expect(self && self->ops->turn != 0, 0))
		self->ops->turn(self);
}
__attribute__((noreturn)) void thread_exit(void *retval);
void *thread_join(struct thread *t);
/* For packages: t has left its stack for good (see thread_ops.exit). */
void thread_exited(struct thread *t);

/* For packages' block(): try PARK_RUN -> PARK_PARKED. 1 on success; 0
   means a permit was waiting (now consumed): do not block.

   The permit is consumed with a locked exchange, never a plain store:
   the caller's next step is to reread its condition, and x86 lets that
   load pass a store still in the store buffer. An unblocker that made
   the condition true meanwhile found the permit still there and left it
   (PERMIT -> PERMIT), trusting us to see the condition; we had read it
   false before our store landed and erased its permit, blocked again,
   and slept for good (kthread's wakerace and fifo+kthread's conformance
   `park`: both threads parked; progs/tests/permitrace.c). The exchange
   is a full barrier: the unblocker's compare-and-swap comes either
   before it (its condition store is then visible to our reread) or
   after it (it finds PARK_RUN and leaves a new permit). */
static inline int thread_park_commit(struct thread *t)
{
	int expect = PARK_RUN;
	if (__atomic_compare_exchange_n(&t->park, &expect, PARK_PARKED, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 1;
	__atomic_exchange_n(&t->park, PARK_RUN, __ATOMIC_SEQ_CST);   /* consume the permit */
	return 0;
}

/* Block the calling thread until thread_unblock. Inline: one indirect
   call into its package, whose block() commits the park (and so consumes
   a permit that came first, returning at once). */
static inline void thread_block(void)
{
	struct thread *self = thread_self();
	self->nvcsw++;                   /* a voluntary switch (getrusage) */
	self->ops->block(self);          /* (which ends with thread_async_back) */
}

/* Light context: what a voluntary switch must keep (callee-saved
   registers, stack, resume point, FPU control words). ctx.S. */
struct lctx {
	uint64_t rbx, rbp, r12, r13, r14, r15, rsp;   /* rsp -> the resume address */
	volatile uint32_t busy;          /* cleared by lctx_swap once off this stack */
	uint32_t pad0;
	uint32_t mxcsr;
	uint16_t fcw, pad;
	/* The thread's FS base (its TLS pointer, <animart/tls.h>), loaded by every
	   switch to it when nonzero; 0: keep the VP's FS base (scheduler
	   loops, programs without TLS). Set once at creation. */
	uint64_t fsbase;
};
/* ulib/rt/ctx.S uses these offsets. */
_Static_assert(__builtin_offsetof(struct lctx, rbx) == 0, "lctx");
_Static_assert(__builtin_offsetof(struct lctx, r15) == 40, "lctx");
_Static_assert(__builtin_offsetof(struct lctx, rsp) == 48, "lctx");
_Static_assert(__builtin_offsetof(struct lctx, busy) == 56, "lctx");
_Static_assert(__builtin_offsetof(struct lctx, mxcsr) == 64, "lctx");
_Static_assert(__builtin_offsetof(struct lctx, fcw) == 68, "lctx");
_Static_assert(__builtin_offsetof(struct lctx, fsbase) == 72, "lctx");
/* Save the caller in *from and continue *to. Returns (in from's context)
   when something switches back to it. */
void lctx_swap(struct lctx *from, const struct lctx *to);
/* The same, loading to's FS base: the yield paths call whichever of the
   two lctx_swap_fn points at (tls_setup picks, once, at start), so a
   program without TLS pays nothing for it (an indirect call costs what a
   direct one does). */
void lctx_swap_tls(struct lctx *from, const struct lctx *to);
extern void (*lctx_swap_fn)(struct lctx *from, const struct lctx *to);
/* lctx_swap, then fn(arg) on to's stack before to resumes: for what must
   wait until from is saved and off its stack. */
void lctx_swap_call(struct lctx *from, const struct lctx *to, void (*fn)(void *), void *arg);
/* A block's switch for a runtime thread: as lctx_swap, then commit its
   park (RUN -> PARKED) on to's stack once from is saved; rt_park_cancel
   there if a permit came first (ulib/rt/ctx.S, ulib/rt/rt_switch.c). With and
   without to's FS base, as lctx_swap: the block path calls
   lctx_swap_park_fn. */
void lctx_swap_park(struct lctx *from, const struct lctx *to);
void lctx_swap_park_tls(struct lctx *from, const struct lctx *to);
extern void (*lctx_swap_park_fn)(struct lctx *from, const struct lctx *to);
/* lctx_jump, calling fn(arg) on to's stack first (`unused`: so fn and
   arg sit in the registers lctx_swap_call has them in); loads to's FS
   base. */
__attribute__((noreturn)) void lctx_jump_call(const struct lctx *to, void *unused,
					      void (*fn)(void *), void *arg);
/* Start or continue *to without saving anything. Without to's FS base
   (for contexts that have none: scheduler loops), and with it: a
   switch to a thread calls lctx_jump_fn. */
__attribute__((noreturn)) void lctx_jump(const struct lctx *to);
__attribute__((noreturn)) void lctx_jump_tls(const struct lctx *to);
extern void (*lctx_jump_fn)(const struct lctx *to) __attribute__((noreturn));
/* The same, then store 0 to *done: for a thread leaving its stack for good. */
__attribute__((noreturn)) void lctx_exit(const struct lctx *to, volatile int *done);

/* A fresh descriptor of a thread of `ops`, with a new id. Inline (on
   every create), and field by field, not a compound literal: GCC zeroes
   a struct that size with `rep stos`, and under icount every repetition
   is an instruction (13 of them, a thirtieth of fifo's create+join). */
extern volatile uint64_t thread_next_id;
/* A fork's child holds copies of every thread of its parent, but only
   the forking thread lives there (POSIX): the others' descriptors still
   sit on waiter queues and in join words of the copied memory. A
   thread made before the last fork (an id below thread_fork_floor)
   other than the forker is such a copy: thread_unblock leaves it be and
   wq_pop passes over it, so a sem_post in the child counts, as glibc's,
   instead of waking a thread that never ran here. */
extern uint64_t thread_fork_floor;
extern struct thread *thread_fork_self;
void thread_forked(struct thread *self);   /* the child, at once */
/* The copy's generation: 1, one more in each fork's child (thread_forked).
   ulib/pthread's object locks hold it (pwait.h's plock), so a child tells
   a lock a copied thread held at the copy from one of its own threads'. */
extern int thread_fork_gen;
static inline int thread_lives(const struct thread *t)
{
	return t->id >= thread_fork_floor || t == thread_fork_self;
}
/* Has t exited? (JOIN_DONE; or t itself: joined or reaped by
   ulib/pthread, which marks it so that a second join is ESRCH.) */
static inline int thread_ended(struct thread *t)
{
	uint64_t j = __atomic_load_n(&t->join, __ATOMIC_ACQUIRE);
	return j == JOIN_DONE || j == (uint64_t)t;
}

static inline void thread_init(struct thread *t, const struct thread_ops *ops)
{
	t->ops = ops;
	t->vpp = 0;
	t->park = PARK_RUN;
	t->sigpend = 0;
	t->join = 0;
	t->retval = 0;
	t->id = __atomic_fetch_add(&thread_next_id, 1, __ATOMIC_RELAXED);
	t->pkg = 0;
	t->crit = 0;
	t->yield_due = 0;
	t->sched = 0;                    /* prio and rr */
	t->async_hold = 0;
	t->nvcsw = t->nivcsw = 0;
	t->tcb = 0;
	t->alt_lo = t->alt_hi = 0;
}
_Static_assert(sizeof(struct thread) == 112, "thread_init sets every field of struct thread");

void lctx_start(void);
/* Set up c to start fn(arg) on [stack, stack+size) (fn must not return).
   Inline: on every create. */
static inline void lctx_make(struct lctx *c, void *stack, uint64_t size, void (*fn)(void *), void *arg)
{
	uint64_t *sp = (uint64_t *)(((uint64_t)stack + size) & ~15UL);
	*--sp = 0;                    /* keeps lctx_start's frame 16-aligned */
	*--sp = (uint64_t)lctx_start; /* lctx_jump's `ret` lands there */
	/* Only what a fresh context reads: the other callee-saved registers
	   are free for it to use, whatever they hold. */
	c->rbp = 0;                   /* ends backtraces */
	c->rsp = (uint64_t)sp;
	c->r12 = (uint64_t)fn;
	c->r13 = (uint64_t)arg;
	c->busy = 0;
	c->mxcsr = 0x1f80;
	c->fcw = 0x37f;
}

#endif
