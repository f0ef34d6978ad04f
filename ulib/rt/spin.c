/* The contended half of the one spin lock (<animart/spin.h>). */
#include <animart/spin.h>
#include <animart/sys.h>
#include <animart/upcall.h>

#define SPINS 100               /* pauses before giving up the processor */

int spin_pause = 1;

/*
 * Wait until l looks free (the caller then retries the exchange). On a
 * classic VP (no upcalls: naive, kthread) the holder may be a VP the
 * kernel preempted with no warning, waiting for this very CPU: give the
 * processor up now and then. On a VP with upcalls the package keeps
 * holders from being preempted inside (the warning and crit, above), so
 * spin: yielding there would only hand the CPU away (fifo's threads lost
 * their fair share of yields that way, and mpl's warnings their point).
 */
void spin_wait(struct spin *l)
{
	spin_wait_while(l, 1);
}

/* The same for a lock that holds its holder's tag v (ulib/pthread's
   plock: a fork generation): wait while it holds v. */
void spin_wait_while(struct spin *l, int v)
{
	int classic = !vp_self()->upcall_entry;
	for (int i = 1; __atomic_load_n(&l->locked, __ATOMIC_RELAXED) == v; i++) {
		if (i % SPINS || !classic) {
			if (spin_pause)
				__asm__ volatile("pause");
		} else
			sys_yield();
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
