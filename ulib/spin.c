/* The contended half of the one spin lock (<spin.h>). */
#include <spin.h>
#include <sys.h>

#define SPINS 100               /* pauses before giving up the processor */

/* Wait until l looks free (the caller then retries the exchange). */
void spin_wait(struct spin *l)
{
	for (int i = 1; __atomic_load_n(&l->locked, __ATOMIC_RELAXED); i++) {
		if (i % SPINS)
			__asm__ volatile("pause");
		else
			sys_yield();    /* the holder may wait for this CPU */
	}
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
