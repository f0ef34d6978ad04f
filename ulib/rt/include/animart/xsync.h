/*
 * Synchronization between spaces: a mutex, condition variable, semaphore
 * and barrier that work when placed in a shared segment (<animart/seg.h>), for
 * threads of any package in any space that maps it.
 *
 * Why not <animart/sync.h>'s objects: their waiter queues link nodes on the
 * waiters' stacks and wake a thread by calling its package's unblock,
 * and neither a stack nor a package's code of one space is reachable from
 * another. Here a waiter waits in the kernel on a futex keyed by
 * (segment, offset), and the kernel routes the wake-up to the waiter's
 * own space: with upcalls (fifo, prio, tutor) only the thread blocks --
 * EV_BLOCKED, then EV_UNBLOCKED to a VP of its own space, whose runtime
 * makes it runnable through its own package; a classic VP (naive,
 * kthread) blocks whole. Nothing of one space ever runs another's code or
 * touches another's private memory, and the kernel never trusts the
 * words: a futex wait compares the word under the futex lock, so a wake
 * between a waiter's check and its sleep is never lost.
 *
 * The uncontended paths are one atomic instruction, no syscall.
 *
 * Errors (positive errno values):
 *  - EIDRM: the segment was revoked, or unmapped by the caller's space,
 *    while the caller waited: the object is gone; do not touch it again.
 *  - EOWNERDEAD (xmutex_lock): the last owner's space ended holding the
 *    mutex (the kernel marked the word from that space's robust list, and
 *    woke the waiters). The caller owns it now; if it makes the protected
 *    state consistent it calls xmutex_consistent() before unlocking, else
 *    the unlock leaves it ENOTRECOVERABLE for everyone.
 *  - ENOTRECOVERABLE: see above; the mutex is dead for good.
 */
#ifndef ULIB_XSYNC_H
#define ULIB_XSYNC_H

#include <stdint.h>
#include <anima/seg.h>
#include <animart/xwait.h>

struct xmutex {
	volatile uint32_t word;        /* 0, or owner space id | XM_WAITERS | XM_DEAD */
	volatile uint32_t dirty;       /* taken with EOWNERDEAD, not yet consistent */
};

struct xcond {
	volatile uint32_t seq;         /* bumped by every signal */
	volatile uint32_t nwait;
	struct xwq q;                  /* its waiters (<animart/xwait.h>) */
};

struct xsem {
	volatile uint32_t count;
	volatile uint32_t nwait;
	struct xwq q;
};

struct xbarrier {
	uint32_t n;
	volatile uint32_t arrived;
	volatile uint32_t gen;
	struct xwq q;
};

int xmutex_lock(struct xmutex *m);      /* 0, EOWNERDEAD, ENOTRECOVERABLE, EIDRM */
int xmutex_trylock(struct xmutex *m);   /* 0 or EBUSY (or EOWNERDEAD, ENOTRECOVERABLE) */
int xmutex_unlock(struct xmutex *m);    /* 0, or EPERM if the caller's space does not own it */
void xmutex_consistent(struct xmutex *m);

int xcond_wait(struct xcond *c, struct xmutex *m);   /* 0 or as xmutex_lock, or EIDRM */
void xcond_signal(struct xcond *c);
void xcond_broadcast(struct xcond *c);

void xsem_init(struct xsem *s, uint32_t count);
int xsem_wait(struct xsem *s);          /* 0 or EIDRM */
void xsem_post(struct xsem *s);

void xbarrier_init(struct xbarrier *b, uint32_t n);
int xbarrier_wait(struct xbarrier *b);  /* 1 in one caller per round, else 0; or -EIDRM */

/* The caller's space id (what an xmutex word holds when it owns it). */
int xspace_id(void);
/* The kernel futex wait on *w while it holds v (xsync.c, xwait.c's
   fallback): its result; refused (-EAGAIN, MAXKOP_SPACE out) with *w
   unchanged, it yields first (thread_wait_refused). */
long xfutex_wait(volatile uint32_t *w, uint32_t v);
/* (Its wake, xfutex_wake, is inline in <animart/xwait.h>.) */

#endif
