/*
 * Process-shared waits (pshared.c's fwait) on a package that keeps its
 * own time (thread_ops.own_time: det and det=par, threadpkgs/det/).
 *
 * Why not the kernel futex there: det decides who runs by a token that
 * moves only where a thread blocks the package's way (thread_block).
 * A det thread asleep in the kernel keeps the token (plain det: its one
 * VP blocks whole; det=par: its fenced operation's turn never ends), or,
 * outside an operation, keeps det=par's parallel phase from ever ending;
 * either way the thread that would wake it never runs (ptest's mqueue
 * area hung on det=par once queues waited on the futex).
 *
 * So the thread waits here as its package's own: it puts a node on this
 * process's list of such waiters (the word's address, the thread), looks
 * at the word once more, and blocks with thread_block_until. A waker of
 * this process (fwake) unblocks the nodes on that address, in its turn,
 * as the private objects' wakers do: deterministic. Another process's
 * wake, or one made through another mapping of the same page (another
 * address), cannot reach the node: the wait is a poll of POLL_NS on the
 * package's clock (det: 20 token moves a ms, or at once when nobody
 * else can run, then the rest in real time), after which the caller
 * looks at the word again. What another process does comes when it
 * comes, as det documents for pipes and signals from outside.
 */
#include <errno.h>
#include <animart/clock.h>
#include <animart/spin.h>
#include <animart/intr.h>
#include "pwait.h"
#include "pshared.h"

#define POLL_NS 5000000ULL           /* a look for what the list cannot tell */

struct lw {
	volatile void *w;
	struct thread *t;
	struct lw *next;
	int on;                      /* on the list (a waker takes it off) */
};

static struct spin lk;
static struct lw *head;
static volatile int nlw;             /* nodes on the list: a waker with none makes no walk */

static void add(struct lw *n)
{
	struct thread *self = thread_self();
	spin_lock_by(&lk, self);
	n->next = head;
	head = n;
	n->on = 1;
	__atomic_add_fetch(&nlw, 1, __ATOMIC_SEQ_CST);
	spin_unlock_by(&lk, self);
}

static void del(struct lw *n)
{
	struct thread *self = thread_self();
	spin_lock_by(&lk, self);
	for (struct lw **pp = &head; n->on && *pp; pp = &(*pp)->next)
		if (*pp == n) {
			*pp = n->next;
			n->on = 0;
			__atomic_sub_fetch(&nlw, 1, __ATOMIC_SEQ_CST);
			break;
		}
	spin_unlock_by(&lk, self);
}

/* Sleep while *w is v: 0 (look again: woken, or the poll ran out) or
   -ETIMEDOUT (the deadline, as thread_block_until takes it, passed).
   A signal or a cancel unblocks the thread (thread_unblock): the caller
   looks. */
int psh_own_sleep(struct thread *t, volatile void *w, uint32_t v, uint64_t deadline, int cancel)
{
	uint64_t poll = now_ns() + POLL_NS;
	int last = deadline && dl_boot(deadline) <= poll;
	struct lw n = { w, t, 0, 0 };
	int r = 0;
	add(&n);
	if (__atomic_load_n((volatile uint32_t *)w, __ATOMIC_SEQ_CST) == v &&
	    !((cancel & PW_CANCEL) && pcancel_pending()) && !psig_due(t))
		r = thread_block_until(last ? deadline : poll);
	del(&n);
	/* A signal from another process interrupted the VP meanwhile (det
	   sleeps out a wait's real time holding the token): inside this
	   wait (async_hold) nothing took it; fetched now, given to a thread,
	   perhaps this one, as a kernel wait's intr_waited would. */
	if (__atomic_load_n(&thread_kern_sigs, __ATOMIC_ACQUIRE))
		intr_cut();
	return last && r == -ETIMEDOUT ? -ETIMEDOUT : 0;
}

/* Wake at most n of this process's waiters on w (after the word
   changed: the waiter looks at it after its node is on the list). */
void psh_own_wake(volatile void *w, int n)
{
	if (!__atomic_load_n(&nlw, __ATOMIC_SEQ_CST))
		return;
	struct thread *self = thread_self();
	spin_lock_by(&lk, self);
	for (struct lw **pp = &head; *pp && n > 0;) {
		struct lw *x = *pp;
		if (x->w != w) {
			pp = &x->next;
			continue;
		}
		*pp = x->next;
		x->on = 0;
		__atomic_sub_fetch(&nlw, 1, __ATOMIC_SEQ_CST);
		thread_unblock(x->t);    /* (under the lock: its node stays until it takes it) */
		n--;
	}
	spin_unlock_by(&lk, self);
}

/* A fork's child: the other threads' nodes are copies (pfork.c). */
void __psh_forked(void)
{
	lk.locked = 0;
	head = 0;
	nlw = 0;
}
