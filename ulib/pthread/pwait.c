/* Waiting with deadlines and cancellation (pwait.h). */
#include <errno.h>
#include <animart/clock.h>
#include "pwait.h"

/* A waiter that gives up (timeout, cancel) must leave the queue itself,
   under the lock; if a waker got there first, the grant is in flight
   and the waiter must take it. */
int pw_wait_slow(struct waiter *w, uint64_t deadline, int cancel, volatile int *lk, struct __pq *q)
{
	int why = 0, c = cancel & PW_CANCEL;
	while (!__atomic_load_n(&w->granted, __ATOMIC_ACQUIRE)) {
		if (c && pcancel_any &&
		    (c == PW_ASYNC ? pcancel_check_async() : pcancel_check()))
			why = ECANCELED;
		else if (psig_due(w->t) && (psig_run(w->t) & (cancel & PW_INTR_ANY ? SIGW_RAN : SIGW_INTR)) &&
			 (cancel & PW_INTR))
			why = EINTR;
		else if (!deadline)
			thread_block();
		else if (thread_block_until(deadline) == -ETIMEDOUT)
			why = ETIMEDOUT;
		if (!why)
			continue;
		plock(lk, w->t);
		if (wq_remove(pq_wq(q), w)) {
			/* still queued: nobody will grant it. (Its lock held:
			   no retry here; the cancel stays pending.) */
			w->t->async_hold = 0;
			pw_gave_up(w->t);
			return why;
		}
		/* A waker took w off the queue and is granting it (it sets
		   `granted` after dropping the lock): wait for that, or it
		   would write into this frame after we left. Keep the grant. */
		punlock(lk, w->t);
		while (!__atomic_load_n(&w->granted, __ATOMIC_ACQUIRE))
			thread_block();
		if (why == EINTR && (cancel & PW_INTR_GIVE)) {
			plock(lk, w->t);
			w->t->async_hold = 0;
			pw_gave_up(w->t);
			return PW_GIVEN;
		}
		break;
	}
	pw_done(w->t);
	return 0;
}

/* A wait that gives up returns with its lock held, where no handler
   may run; a signal posted since its last look (the post's interrupt
   found async_hold set and left the flag) would then wait for some later
   upcall or yield, past the return. Linux runs it before the call
   returns, whatever it returns: have the caller's last punlock run it
   (spin_yield_due's spin_act_due). A post after this look finds
   async_hold 0 and the lock held: its interrupt defers to the same
   punlock (spin_defer_intr). */
void pw_gave_up(struct thread *self)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (psig_due(self))
		__atomic_compare_exchange_n(&self->yield_due, &(int){ 0 }, YIELD_DUE_INTR, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* A handler that waits itself (a lock, a condition) may take the very
   wake-up that ends the caller's wait: the caller's loop would then
   block for ever on a condition already true. So after handlers ran,
   leave the caller a permit: its next block returns at once, spuriously
   if nothing was taken, and it looks at its condition again. */
int psig_run(struct thread *self)
{
	int r = __sig_in_wait ? __sig_in_wait(self) : 0;
	if (r)
		thread_unblock(self);
	return r;
}

void pw_retry(struct thread *self)
{
	if (self->ops->interrupt)
		self->ops->interrupt(self);
}

uint64_t __clock_epoch_ns(void);      /* CLOCK_REALTIME - CLOCK_MONOTONIC (ulib/libc/time.c) */

int64_t pdeadline(clockid_t clock, const struct timespec *abstime)
{
	if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L)
		return -EINVAL;
	uint64_t now = now_ns();
	if (abstime->tv_sec < 0)         /* before the epoch: long past, so ETIMEDOUT */
		return now ? (int64_t)now : 1;   /* (POSIX: only tv_nsec makes it EINVAL) */
	uint64_t abs = (uint64_t)abstime->tv_sec * 1000000000ULL + (uint64_t)abstime->tv_nsec;
	if (clock == CLOCK_REALTIME) {
		uint64_t rt = __clock_epoch_ns() + now;     /* the same instant as now */
		if (abs > rt && abs < DL_REALTIME)
			return (int64_t)(abs | DL_REALTIME);    /* follows a clock set (<animart/clock.h>) */
		abs = abs > rt ? now + (abs - rt) : now;
	} else if (clock != CLOCK_MONOTONIC)
		return -EINVAL;
	return abs ? (int64_t)abs : 1;
}
