/* The contended half of the one spin lock (<animart/spin.h>). */
#include <animart/spin.h>
#include <animart/sys.h>
#include <animart/upcall.h>

#define SPINS 100               /* pauses before a classic VP gives up its processor */
#define TURN 4096               /* pauses before an upcall VP's waiter gives its VP's
				   other threads a turn */

int spin_pause = 1;

/*
 * Wait until l looks free (the caller then retries the exchange).
 *
 * On a classic VP (no upcalls: naive, kthread) the holder may be a VP the
 * kernel preempted with no warning, waiting for this very CPU: give the
 * processor up now and then.
 *
 * On a VP with upcalls the package keeps a holder from being switched
 * out by a warning or a time slice (crit, above), so the waiter spins,
 * and yielding at once would only hand the CPU away (fifo's threads lost
 * their fair share of yields that way, and mpl's warnings their point).
 * But the holder can still be off every VP: it blocked in the kernel
 * with the lock held (any touch of memory may: a page that comes late),
 * or the kernel preempted its VP and the package queued it meanwhile.
 * Once it may run again it sits in some VP's run queue, and a waiter,
 * whose own crit keeps time slices off it, never lets that VP's
 * scheduler run: with a waiter on every VP nothing ran again
 * (progs/posix/spinfault.c hung every time on fifo, prio and tutor;
 * forklock now and then). So after TURN pauses a waiter that is a
 * thread (software interrupts on) yields: its VP's scheduler runs the
 * holder if it is queued there, or takes it from another VP's queue.
 */
static void spin_turn(void)
{
	struct thread *t = spin_owner();
	if (t && t->ops && t->ops->yield)
		thread_yield();
}

/* Wait while l holds v, its holder's tag (1; for ulib/pthread's plock a
   fork generation). */
void spin_wait_while(struct spin *l, int v)
{
	int classic = !vp_self()->upcall_entry;
	for (int i = 1; __atomic_load_n(&l->locked, __ATOMIC_RELAXED) == v; i++) {
		if (classic && i % SPINS == 0)
			sys_yield();
		else if (!classic && i % TURN == 0)
			spin_turn();
		else if (spin_pause)
			__asm__ volatile("pause");
	}
}

int thread_pkgs_on;

struct thread *spin_owner(void)
{
	return thread_pkgs_on && !vp_self()->disabled ? thread_self() : 0;
}

/* The last spin lock of t is released and a switch was deferred while it
   held one: a preemption warning (give up the VP: the kernel counts it as
   honored) or a user-level reschedule (let the package pick again). */
void spin_yield_due(struct thread *t)
{
	int due = t->yield_due;
	t->yield_due = 0;
	if (due == YIELD_DUE_VP)
		sys_yield();
	else if (due == YIELD_DUE_THREAD)
		thread_yield();
	spin_act_due(t);
}

/* Whether an interrupt of t has work for it: an asynchronous cancel due
   or a signal handler waiting. */
static int intr_due(struct thread *t)
{
	return (thread_async_hook && thread_async_hook(t)) ||
	       (__atomic_load_n(&t->sigpend, __ATOMIC_ACQUIRE) & SIGPEND_WAITING);
}

/* An interrupt (an upcall, a classic VP's intr_entry, a resume from a
   full context) found t inside a spin lock, where it may not end t or
   run a handler: have its last spin_unlock do it. The interrupt was the
   one kick pthread_cancel or a signal's post sends; without this a
   thread that only computes went on for good (a cancel of one that
   calls random(), which holds a spin lock most of the time, was lost
   in most rounds: progs/posix/asynccancel.c). */
void spin_defer_intr(struct thread *t)
{
	if (!t->yield_due && intr_due(t))
		t->yield_due = YIELD_DUE_INTR;
}

/* t (the caller) just left its last spin lock: end it if an
   asynchronous cancel is due, run the signal handlers that wait for it,
   as the interrupt would have done there. The fence: after a deferred
   yield t may run on another VP, whose set_current stored t->vpp; a
   cancel or post that read the old one kicked the VP t left, and must
   then be seen here (each side stores, then loads the other's word). */
void spin_act_due(struct thread *t)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	void (*end)(void) = thread_async_hook ? (void (*)(void))thread_async_hook(t) : 0;
	if (end)
		end();                   /* noreturn */
	if (thread_signal_hook && !t->async_hold &&
	    (__atomic_load_n(&t->sigpend, __ATOMIC_ACQUIRE) & SIGPEND_WAITING))
		thread_signal_hook(t);
}
