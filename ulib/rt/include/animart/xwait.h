/*
 * Waiting on a word in a shared segment, at user level where possible
 * (ulib/rt/xwait.c): the futex of <animart/xsync.h>'s objects, with wake-ups that
 * cross spaces routed through the waiter's own runtime (EV_WAKE).
 *
 * An object keeps a struct xwq beside the word its waiters watch. A
 * thread of a runtime package with upcalls (fifo, prio, tutor) publishes
 * a wait record there and parks through its package (thread_block): no
 * kernel. A waker of the same space unblocks it directly; a waker of
 * another space sends SYS_seg_wake, and the waiter's runtime turns the
 * EV_WAKE into thread_unblock. Classic VPs (naive, kthread), a full
 * record array or a full waiter table fall back to the kernel futex.
 */
#ifndef ULIB_XWAIT_H
#define ULIB_XWAIT_H

#include <stdint.h>
#include <animart/sys.h>

#define XWQ_RECS 4                     /* user-level waiters one object names at once */

struct xwq {
	/* 0, or a waiter: space id << 40 | VP index << 32 | token (xwait.c).
	   Written by every space that maps the object: never trusted. */
	volatile uint64_t rec[XWQ_RECS];
	volatile uint32_t nfutex;        /* waiters in the kernel (the fallback) */
	uint32_t pad;
};

/* Sleep while *w == expect (unless woken): 0 (re-check the condition),
   or -EIDRM once the segment is gone from the caller's space. */
long xwait(volatile uint32_t *w, uint32_t expect, struct xwq *q);
/* Wake up to n waiters of q (the caller changed *w first). */
void xwake(volatile uint32_t *w, struct xwq *q, int n);
/* Wake one, and if it is of another space and its VP was idle on our
   CPU, hand it the CPU now (SYS_seg_wake's SEGWAKE_YIELD): for a waker
   that will itself wait next, holding nothing the woken one needs (a
   semaphore's post, not a condition's signal under its mutex). */
void xwake_handoff(volatile uint32_t *w, struct xwq *q);

/* The runtime's drain: an EV_WAKE with this token arrived (untrusted). */
void xw_event(uint64_t token);

/* A waiter of a package that keeps its own time (det, det=par), on a
   word of a shared object (ulib/rt/ownwait.c): on this process's list
   while it naps, so that this process's wakers unblock it at once. */
struct thread;
struct ownw {
	volatile void *w;
	struct thread *t;
	struct ownw *next;
	int on;                      /* on the list (a waker takes it off) */
};
void ownw_add(struct ownw *n);
void ownw_del(struct ownw *n);
int ownw_walk(volatile void *w, int n);    /* ownw_wake's walk of the list */
void ownw_forked(void);                    /* a fork's child: the others' nodes are copies */
extern volatile int ownw_n;                /* nodes on the list */

/* Wake at most n of this process's own-time waiters on w (after the
   word changed: the waiter looks at it after its node is on the list);
   how many it woke. Inline, as every shared wake asks it: with no node
   (any package but det) a load and a branch, no call. */
static inline int ownw_wake(volatile void *w, int n)
{
	if (__builtin_expect(!__atomic_load_n(&ownw_n, __ATOMIC_SEQ_CST), 1))
		return 0;
	return ownw_walk(w, n);
}

struct xw_stats { uint64_t parked, fallback, local, remote, forged, all, retried, naps, ownwoke; };
extern struct xw_stats xw_stats;       /* racy counters, for tests */

/* Wake up to n of xfutex_wait's waiters on *w: this process's that keep
   their own time (det) at once, then the kernel's. Inline: a classic
   VP's post (naive, kthread) makes only the futex wake, as before
   ownwait.c (xbench's same.kthread.signal_wait 1785 -> 1742). */
static inline void xfutex_wake(volatile uint32_t *w, int n)
{
	int k = ownw_wake(w, n);
	if (__builtin_expect(k != 0, 0)) {
		xw_stats.ownwoke += k;
		n -= k;
	}
	if (n > 0)
		syscall2(SYS_futex_wake, w, n);
}

#endif
