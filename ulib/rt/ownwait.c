/*
 * This process's waiters on shared words of a package that keeps its
 * own time (thread_ops.own_time: det, det=par). Such a thread never
 * waits in the kernel (it would keep det's token): it puts a node here
 * (the word's address, the thread), looks at the word once more, and
 * naps on the package's clock (thread_block_until). A waker of this
 * process (ownw_wake) unblocks the nodes on the word's address, in its
 * turn, as the private objects' wakers do: deterministic, and at once,
 * not at the waiter's next look. Another process's wake cannot reach a
 * node: the nap ends, and the waiter looks again. Users: pshown.c's
 * process-shared waits, xsync.c's cross-space ones (<animart/xwait.h>).
 */
#include <animart/xwait.h>
#include <animart/thread.h>
#include <animart/spin.h>

static struct spin lk;
static struct ownw *head, **tail = &head;
volatile int ownw_n;                 /* nodes on the list: a waker with none makes no walk (xwait.h) */

/* At the tail: the first to wait is the first woken. */
void ownw_add(struct ownw *n)
{
	struct thread *self = thread_self();
	spin_lock_by(&lk, self);
	n->next = 0;
	*tail = n;
	tail = &n->next;
	n->on = 1;
	__atomic_add_fetch(&ownw_n, 1, __ATOMIC_SEQ_CST);
	spin_unlock_by(&lk, self);
}

/* Under lk: off the list, *pp pointing at n. */
static void unlink(struct ownw **pp, struct ownw *n)
{
	*pp = n->next;
	if (tail == &n->next)
		tail = pp;
	n->on = 0;
	__atomic_sub_fetch(&ownw_n, 1, __ATOMIC_SEQ_CST);
}

void ownw_del(struct ownw *n)
{
	struct thread *self = thread_self();
	spin_lock_by(&lk, self);
	for (struct ownw **pp = &head; n->on && *pp; pp = &(*pp)->next)
		if (*pp == n) {
			unlink(pp, n);
			break;
		}
	spin_unlock_by(&lk, self);
}

/* ownw_wake (<animart/xwait.h>) found nodes: wake at most n of those
   on w; how many it woke. */
int ownw_walk(volatile void *w, int n)
{
	int woke = 0;
	struct thread *self = thread_self();
	spin_lock_by(&lk, self);
	for (struct ownw **pp = &head; *pp && woke < n;) {
		struct ownw *x = *pp;
		if (x->w != w) {
			pp = &x->next;
			continue;
		}
		unlink(pp, x);
		thread_unblock(x->t);    /* (under the lock: its node stays until it takes it) */
		woke++;
	}
	spin_unlock_by(&lk, self);
	return woke;
}

/* A fork's child: the other threads' nodes are copies. */
void ownw_forked(void)
{
	lk.locked = 0;
	head = 0;
	tail = &head;
	ownw_n = 0;
}
