/*
 * Turns at the deadlines of timed waits, on packages without time slices.
 *
 * A timed wait on a classic VP (naive) waits at user level, yielding,
 * while other threads can run on its VP (rt_block_until); and on an
 * upcall VP (tutor, prio) its thread waits in the VP's timer queue and
 * is queued at the timer's upcall (rt_tq.c). Either way it runs again
 * only when the thread on the VP stops by itself: behind one that only
 * computes, a sleeper never woke, and alarm's timer thread
 * (ulib/libc/timer.c) never sent its signal (with one VP, never at all). So a deadline is a turn:
 *   - classic VPs: the waiter sets its VP's one-shot user timer (SYS_timer)
 *     for its deadline (once, unless the VP's is set for earlier and has
 *     not passed) and the space's earliest in rt_wait_due; the timer's
 *     event is an interrupt of the VP (kernel/intr.c), and intr_run
 *     (intr.c) has the interrupted thread yield once rt_due_passed;
 *   - upcall VPs: drain (rt_sched.c) switches the running thread out
 *     (RQ_RESCHED) when its VP's timer queue (rt_tq.c) ends a timed
 *     wait, or a thread whose kernel wait ended with its park word still
 *     PARK_TIMED (a pipe's or a lock's, pipe.c, flock.c) comes back, on
 *     packages without time slices of their own (no `event` hook:
 *     fifo's slices already give it a turn).
 * A thread inside a spin lock is not switched out: at its spin_unlock, as
 * for any reschedule. det's timed waits run on its logical time
 * (det_block_until) and take no part.
 */
#include <animart/vprt.h>
#include <animart/clock.h>
#include <animart/sys.h>

#define DUE_TOKEN 0x6475657475726eUL     /* "dueturn" */

static volatile uint64_t rt_wait_due;   /* the earliest armed deadline (0: none) */

/* The calling thread waits at user level on a classic VP until deadline. */
void rt_due_arm(uint64_t deadline)
{
	uint64_t d = __atomic_load_n(&rt_wait_due, __ATOMIC_RELAXED);
	while ((!d || deadline < d) &&
	       !__atomic_compare_exchange_n(&rt_wait_due, &d, deadline, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	int was;
	struct rtvp *v = vp_pkg(vp_disable_save_self(&was));
	if (!(v->wait_due > now_ns() && v->wait_due <= deadline)) {
		v->wait_due = deadline;
		syscall2(SYS_timer, deadline, DUE_TOKEN);
	}
	if (!was)
		vp_enable_self();
}

/* An interrupt (intr_run): 1 if a user-level timed wait's deadline has
   passed, which the interrupted thread then answers with a yield. */
int rt_due_passed(void)
{
	uint64_t d = __atomic_load_n(&rt_wait_due, __ATOMIC_RELAXED);
	if (!d || now_ns() < d)
		return 0;
	__atomic_compare_exchange_n(&rt_wait_due, &d, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return 1;
}
