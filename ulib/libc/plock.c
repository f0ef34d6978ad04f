/*
 * A lock several processes share through a MAP_SHARED file (mqueue.c's
 * queues, sysvsem.c's semaphore sets), and the sleeps under it. Why not
 * a process-shared pthread mutex: a process that dies holding one
 * leaves it held for ever. The lock is a word holding the holder's pid,
 * LK_WAIT set once someone may sleep on it. A waiter sleeps on the word
 * (the kernel futex, keyed by the file's frame) at most PLK_POLL_NS at a
 * time, then asks whether the holder lives (kill(pid, 0): a process that
 * ended is ESRCH, a zombie too); if not, it takes the lock over and lets
 * the caller's repair make its object whole again. Waits for a change
 * sleep on a word the changes bump (psh_word_wait, ulib/pthread/
 * pshared.c), the lock released meanwhile: a signal handler runs inside
 * them and ends them with EINTR unless it has SA_RESTART, pthread_cancel
 * ends them at a cancellation point.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/upcall.h>
#include "../pthread/pwait.h"
#include "../pthread/pshared.h"
#include "plock.h"

#define LK_WAIT 0x80000000U

int plk_self(void)
{
	return (int)vp_pseudo()->space_id;     /* the kernel's page of the VP */
}

int plk_alive(int pid)
{
	return pid == plk_self() || kill(pid, 0) == 0 || errno != ESRCH;
}

uint64_t __clock_epoch_ns(void);      /* time.c: CLOCK_REALTIME - CLOCK_MONOTONIC */

/* Has deadline dl passed (0: none; DL_REALTIME: a CLOCK_REALTIME time)? */
int plk_past(uint64_t dl)
{
	if (dl & DL_REALTIME)
		return __clock_epoch_ns() + now_ns() >= (dl & ~DL_REALTIME);
	return dl && now_ns() >= dl;
}

/* A wait on a classic VP (no upcalls: naive), where the kernel wait
   blocks the VP whole, and with it the threads queued on it, perhaps
   the one to wake us (a holder of the lock, a sender of this process):
   while some of them can run (yield_other) the caller waits by letting
   them, looking at the word between their turns, as a pipe's wait does
   (ulib/libc/pipe.c). 0 (the word moved on), ETIMEDOUT, or -1: wait in
   the kernel (no other can run, a handler or a cancel is due, or the
   VP has upcalls). */
static int vp_turns(volatile uint32_t *w, uint32_t v, uint64_t dl)
{
	struct thread *self = thread_self();
	int (*other)(struct thread *) = self ? self->ops->yield_other : 0;
	if (!other || __atomic_load_n(&self->vpp->upcall_entry, __ATOMIC_RELAXED))
		return -1;
	for (;;) {
		if (__atomic_load_n(w, __ATOMIC_ACQUIRE) != v)
			return 0;
		if (plk_past(dl))
			return ETIMEDOUT;
		if (psig_due(self) || pcancel_pending() || !other(self))
			return -1;
	}
}

void plk_lock(volatile uint32_t *w, void (*repair)(void *), void *arg)
{
	uint32_t me = (uint32_t)plk_self(), v = 0;
	uint64_t dl = 0;                 /* when to ask whether v's holder lives */
	if (__atomic_compare_exchange_n(w, &v, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	for (uint32_t last = 0;; last = v) {
		v = __atomic_load_n(w, __ATOMIC_RELAXED);
		if ((v | LK_WAIT) != (last | LK_WAIT))
			dl = 0;          /* another holder: its time starts now */
		if (v == 0) {
			if (__atomic_compare_exchange_n(w, &v, me | LK_WAIT, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return;
			continue;
		}
		if (!(v & LK_WAIT) && !__atomic_compare_exchange_n(w, &v, v | LK_WAIT, 0, __ATOMIC_RELAXED,
								   __ATOMIC_RELAXED))
			continue;
		v |= LK_WAIT;
		if (!dl)
			dl = now_ns() + PLK_POLL_NS;
		int r = vp_turns(w, v, dl);
		if (r < 0)
			r = psh_word_wait(w, v, dl, 0);
		if (r != ETIMEDOUT)      /* (a wait may end early: det's look for other processes) */
			continue;
		dl = 0;
		if (plk_alive((int)(v & ~LK_WAIT)))
			continue;
		if (__atomic_compare_exchange_n(w, &v, me | LK_WAIT, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			repair(arg);               /* its holder died in the middle */
			return;
		}
	}
}

void plk_unlock(volatile uint32_t *w)
{
	if (__atomic_exchange_n(w, 0, __ATOMIC_RELEASE) & LK_WAIT)
		psh_word_wake(w, 1);
}

/* The lock held: sleep while *word is still seq, then take the lock
   again. 0 (look again), ETIMEDOUT, EINTR, or ECANCELED.
   The whole wait is held (async_hold, as a POSIX wait's node on its
   queue): a handler due meanwhile runs inside it, where SA_RESTART is
   known, never from an interrupt on the way (after the lock, or in
   vp_turns' turns on a classic VP). Run from there, it left only the
   thread_unblock's permit, which the wait took as a spurious wake-up,
   and the receive waited on for good with its handler already run
   (ptest's mqueue area hung on naive-2 and fifo-2: its reader's
   pthread_kill came while it looked between turns). */
int plk_sleep(volatile uint32_t *w, void (*repair)(void *), void *arg, volatile uint32_t *word,
	      volatile uint32_t *count, uint64_t deadline, int cancel)
{
	struct thread *self = thread_self();
	int held = !self || self->async_hold;
	if (!held)
		self->async_hold = 1;
	uint32_t seq = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	++*count;
	plk_unlock(w);
	int r = vp_turns(word, seq, deadline);
	if (r < 0)
		r = psh_word_wait(word, seq, deadline, cancel | PW_INTR);
	if (!held) {                     /* (a handler due after the wait's last look: now) */
		pw_release(self);
		if (psig_due(self) && (psig_run(self) & SIGW_INTR) && !r)
			r = EINTR;   /* (whatever r: a cancel acts after it, as on Linux) */
	}
	plk_lock(w, repair, arg);
	--*count;
	return r;
}

