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
	int classic = !vp_self()->upcall_entry;
	for (int i = 1; __atomic_load_n(&l->locked, __ATOMIC_RELAXED); i++) {
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
	else
		thread_yield();
}
