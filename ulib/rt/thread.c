/*
 * The package-independent half of the thread interface: park/unpark,
 * join, and lctx_make. See <animart/thread.h> and docs/thread-interface.md.
 */
#include <string.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/thread.h>
#include <animart/intr.h>

/* On every block, unblock and join (make bench counts them): no frame
   pointer, as in rt_switch.c. */
#pragma GCC optimize("omit-frame-pointer")

volatile uint64_t thread_next_id = 1;   /* <animart/thread.h>'s thread_init */
uint64_t thread_fork_floor;              /* <animart/thread.h>: thread_lives */
struct thread *thread_fork_self;
int thread_fork_gen = 1;                 /* <animart/thread.h> */

void thread_forked(struct thread *self)
{
	thread_fork_self = self;
	thread_fork_floor = thread_next_id;
	thread_fork_gen++;
}


int thread_block_until(uint64_t deadline)
{
	struct thread *self = thread_self();
	int expect = PARK_PERMIT;
	if (__atomic_compare_exchange_n(&self->park, &expect, PARK_RUN, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 0;
	if (!deadline) {
		thread_block();
		return 0;
	}
	int r = self->ops->block_until ? self->ops->block_until(self, deadline)
				       : thread_park_timed(self, deadline);
	thread_async_back(self);         /* (block_until parks with rt_park, which does not look) */
	return r;
}

volatile int thread_async_used;
int thread_switch_rare;

/* Before the caller turns asynchronous cancelability on: its parks from
   now on look (rt_block takes its rare path). */
void thread_async_use(void)
{
	if (!__atomic_load_n(&thread_async_used, __ATOMIC_RELAXED)) {
		__atomic_store_n(&thread_async_used, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&thread_switch_rare, 1, __ATOMIC_SEQ_CST);
	}
}

/* Back from a park with thread_async_used set: an asynchronous cancel
   that woke us (pthread_cancel sent no interrupt then) acts through our
   own VP's interrupt, whose upcall asks thread_async_hook as a
   canceller's would (inside a spin lock: at its release; inside a wait
   of the POSIX layer, async_hold: the hook marks it and the wait's end
   asks again). A thread woken from a wait that is no cancellation point
   (a nap) and computing on is so still reached. */
void thread_async_look(struct thread *self)
{
	if (thread_async_hook && self->ops->interrupt && thread_async_hook(self))
		self->ops->interrupt(self);
}

/* thread_park_timed's wait to a CLOCK_REALTIME time (DL_REALTIME): the
   kernel converts it at the wait's start, and a clock set ends the wait
   with 0. One wait, and 0 (a spurious wake-up: the caller looks at its
   condition and waits again, converted anew) for anything but a timeout,
   so that a caller with several deadlines (the timer thread) can look
   at them all again after a set. */
static int park_rt(struct thread *self, uint64_t rt_ns)
{
	long r = intr_waited(syscall3(SYS_futex_wait_rt, &self->park, PARK_TIMED, rt_ns));
	int s = PARK_TIMED;              /* back to RUN, unless an unblock did it */
	return __atomic_compare_exchange_n(&self->park, &s, PARK_RUN, 0, __ATOMIC_SEQ_CST,
					   __ATOMIC_ACQUIRE) && r == -ETIMEDOUT ? -ETIMEDOUT : 0;
}

/*
 * Timed park: the thread stays on its stack and sleeps in the kernel on
 * its park word, which says PARK_TIMED meanwhile. thread_unblock moves it
 * TIMED -> RUN and wakes the futex; whichever of that and the timeout's
 * own TIMED -> RUN comes first decides the result, so neither is lost.
 * The kernel blocks only this thread on an upcall VP (EV_BLOCKED: the VP
 * runs others) and on kthread (one VP per thread).
 */
int thread_park_timed(struct thread *self, uint64_t deadline)
{
	int s = PARK_RUN;
	if (!__atomic_compare_exchange_n(&self->park, &s, PARK_TIMED, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_ACQUIRE)) {
		/* a permit: consumed with a locked exchange, for the reason
		   thread_park_commit gives (<animart/thread.h>) */
		__atomic_exchange_n(&self->park, PARK_RUN, __ATOMIC_SEQ_CST);
		return 0;
	}
	self->nvcsw++;
	if (deadline & DL_REALTIME)
		return park_rt(self, deadline & ~DL_REALTIME);
	for (;;) {
		uint64_t now = now_ns();
		if (now >= deadline) {
			s = PARK_TIMED;
			return __atomic_compare_exchange_n(&self->park, &s, PARK_RUN, 0, __ATOMIC_SEQ_CST,
							   __ATOMIC_ACQUIRE) ? -ETIMEDOUT : 0;
		}
		long r = intr_waited(syscall3(SYS_futex_wait, &self->park, PARK_TIMED, deadline - now));
		thread_wait_refused(&self->park, PARK_TIMED, r);
		if (__atomic_load_n(&self->park, __ATOMIC_ACQUIRE) != PARK_TIMED)
			return 0;
	}
}

/*
 * A kernel wait refused (-EAGAIN with the word unchanged: the space's
 * MAXKOP_SPACE blocked calls are out) is looked at and tried again at
 * once by every caller. Yield first: on a package without time slices
 * (tutor, prio) the loop otherwise kept its VP from the queued threads,
 * among them the one that would change the word (kopflood's main at
 * -smp 2: 190 s to get a turn). det's yield hands its token on, as at
 * any other yield. No thread (a VP's own code): nobody to yield to.
 */
void thread_wait_yield(volatile void *w, uint32_t v)
{
	if (__atomic_load_n((volatile uint32_t *)w, __ATOMIC_RELAXED) == v &&
	    thread_self())
		thread_yield();
}

/* Apart, so the common path of thread_unblock needs no saved register. */
static __attribute__((noinline)) void wake_timed(struct thread *t)
{
	syscall3(SYS_futex_wake, &t->park, 1, 0);
}

/* A process-shared wait's (PARK_KWAIT, now RUN): end it, -EINTR, in
   the kernel; it then looks at its signals and cancel. The waiter
   checks the park word under the kernel's lock before it sleeps, so a
   cut before it slept ends its wait at once (kernel/kop.c, kop_cut). */
static __attribute__((noinline)) void cut_kwait(struct thread *t)
{
	syscall1(SYS_wait_cut, &t->park);
}

/*
 * Always an atomic read-modify-write, even when a permit is already there
 * (PERMIT -> PERMIT): the locked instruction is the full barrier that
 * orders the caller's earlier stores (the condition it just made true)
 * before its look at t->park. A plain load could be satisfied while those
 * stores still sit in this CPU's store buffer: then t consumes the old
 * permit, rereads the condition, still finds it false, and parks for good
 * (found by fifo's park ping-pong at -smp 2: both threads parked).
 */
_Static_assert(PARK_RUN < PARK_PARKED && PARK_PERMIT < PARK_PARKED && PARK_TIMED > PARK_PARKED &&
	       PARK_KWAIT > PARK_TIMED, "thread_unblock's test");

/* The old park state (-1: t is a fork's copy, left be). Inlined into
   both callers: thread_unblock, which ignores it, keeps its tail call
   into the package (a result cost fifo's signal-wait 7 instructions). */
static inline __attribute__((always_inline)) int unblock(struct thread *t)
{
	if (__builtin_expect(!thread_lives(t), 0))
		return -1;                   /* the copy of a parent's thread (a fork's child) */
	int s = __atomic_load_n(&t->park, __ATOMIC_RELAXED);
	for (;;) {
		/* PARKED and TIMED (the two highest) -> RUN; RUN, PERMIT -> PERMIT */
		int to = s < PARK_PARKED ? PARK_PERMIT : PARK_RUN;
		if (__atomic_compare_exchange_n(&t->park, &s, to, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
			if (s == PARK_PARKED)
				t->ops->unblock(t);   /* we took it out of PARKED: we requeue it */
			else if (s == PARK_TIMED)  /* asleep in the kernel (thread_park_timed) */
				wake_timed(t);
			else if (s > PARK_TIMED)   /* PARK_KWAIT: a process-shared wait (the
						      flags of the compare just made) */
				cut_kwait(t);
			return s;
		}
	}
}

void thread_unblock(struct thread *t)
{
	unblock(t);
}

int thread_unpark(struct thread *t)
{
	int s = unblock(t);
	return s == PARK_PARKED || s == PARK_TIMED;
}

/*
 * Exit and join are ordered so that no package can livelock on them: the
 * joiner learns of the exit (JOIN_DONE) only from thread_exited(), which
 * the package calls once the exiting thread is off its stack. Waking the
 * joiner first let a higher-priority joiner run on the exiting thread's
 * VP and wait, yielding to itself, for the thread it had preempted to
 * leave its stack.
 */
void thread_exit(void *retval)
{
	struct thread *self = thread_self();
	self->retval = retval;
	self->ops->exit(self);
}

void thread_exited(struct thread *t)
{
	uint64_t j = __atomic_exchange_n(&t->join, JOIN_DONE, __ATOMIC_ACQ_REL);
	if (j && j != JOIN_DONE)
		thread_unblock((struct thread *)j);   /* t may be reused from here on */
}

void *thread_join(struct thread *t)
{
	struct thread *self = thread_self();
	uint64_t expect = 0;
	__atomic_compare_exchange_n(&t->join, &expect, (uint64_t)self, 0,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&t->join, __ATOMIC_ACQUIRE) != JOIN_DONE)
		thread_block();
	void *v = t->retval;
	t->ops->free(t);
	return v;
}

