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
 * process's list of such waiters (ulib/rt/ownwait.c: the word's address,
 * the thread), looks at the word once more, and blocks with
 * thread_block_until. A waker of
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
#include <animart/xwait.h>
#include <animart/intr.h>
#include "pwait.h"
#include "pshared.h"

#define POLL_NS 5000000ULL           /* a look for what the list cannot tell */

/* Sleep while *w is v: 0 (look again: woken, or the poll ran out) or
   -ETIMEDOUT (the deadline, as thread_block_until takes it, passed).
   A signal or a cancel unblocks the thread (thread_unblock): the caller
   looks. */
int psh_own_sleep(struct thread *t, volatile void *w, uint32_t v, uint64_t deadline, int cancel)
{
	uint64_t poll = now_ns() + POLL_NS;
	int last = deadline && dl_boot(deadline) <= poll;
	struct ownw n = { w, t, 0, 0 };
	int r = 0;
	ownw_add(&n);
	if (__atomic_load_n((volatile uint32_t *)w, __ATOMIC_SEQ_CST) == v &&
	    !((cancel & PW_CANCEL) && pcancel_pending()) && !psig_due(t))
		r = thread_block_until(last ? deadline : poll);
	ownw_del(&n);
	/* A signal from another process interrupted the VP meanwhile (det
	   sleeps out a wait's real time holding the token): inside this
	   wait (async_hold) nothing took it; fetched now, given to a thread,
	   perhaps this one, as a kernel wait's intr_waited would. */
	if (__atomic_load_n(&thread_kern_sigs, __ATOMIC_ACQUIRE))
		intr_cut();
	return last && r == -ETIMEDOUT ? -ETIMEDOUT : 0;
}

/* A fork's child: the other threads' nodes are copies (pfork.c). */
void __psh_forked(void)
{
	ownw_forked();
}
