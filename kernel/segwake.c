/*
 * Cross-space wake-ups: SYS_seg_wake and EV_WAKE.
 *
 * A thread of a runtime package (upcall VPs) that waits on an object in
 * a shared segment parks at user level, after publishing in the object a
 * wait record: its space id, a VP index and a token (ulib/rt/xwait.c). A
 * waker of another space cannot run the waiter's package code, so it
 * asks the kernel to route the wake-up: EV_WAKE(token) to a VP of the
 * waiter's space, whose runtime looks the token up in its own table and
 * unblocks the thread through the thread's own package.
 *
 * The kernel interprets nothing of the token. Authority: the caller must
 * map a segment at addr and the target space must map the same segment,
 * so only spaces that share memory can wake each other (a forged token
 * then costs the target at most a spurious wake-up, see xwait.c). Bounded:
 * an EV_WAKE is admitted as a signal is, and when the VP's queue is full
 * it is coalesced into one owed EV_WAKE(0) (event_post, EVP_WAKE).
 *
 * SEGWAKE_YIELD makes it a hand-off: the caller gives the woken VP its
 * CPU (sched.c, vp_yield_to), for a waker that is about to wait for an
 * answer (xsem_post).
 */
#include "kernel.h"

/* Can vp take an EV_WAKE soon? It has upcalls, and it is not blocked in
   a system call that blocks the whole VP (SYS_wait, a classic block):
   its events would wait until that returns. Idling is fine: the post
   wakes it. (Racy, so only a preference: any VP with upcalls takes it
   in the end.) */
static int ready(struct vp *vp)
{
	return vp && READ_ONCE(vp->vpp->upcall_entry) &&
	       !(vp->state == VP_BLOCKED && !READ_ONCE(vp->idle_wait));
}

/* Post EV_WAKE(token) to VP vi of sp (the one the waiter ran on), or if
   that one is gone, has no upcalls or is blocked whole, to another that
   is ready, else to any with upcalls. Each VP's readiness is read once,
   and the choice stands: it is racy (a VP blocks or wakes as we look),
   and any VP with upcalls takes the event in the end. Before, ready()
   of the chosen VP was read again after the search: a VP found ready,
   then blocked whole a moment later, left no candidate (the search had
   passed it over as `any`), and a live space's wake-up was answered
   -ESRCH and lost (5-53 per 10 s of a flood at a VP sleeping whole).
   No VP with upcalls at all (none registered yet, or the space cleared
   its entries): -EAGAIN, the waker must send it again (ulib's wake()
   does). sp->lock held (the VPs stay). */
static long wake_post(struct space *sp, uint64_t vi, uint64_t token, uint32_t from, struct vp **to,
		      int how)
{
	struct vp *vp = vp_lookup(sp, vi), *any = 0;
	if (!ready(vp)) {
		any = vp && READ_ONCE(vp->vpp->upcall_entry) ? vp : 0;
		vp = 0;
		for (int i = 0; !vp && i < sp->nvp; i++) {
			struct vp *w = vp_lookup(sp, (uint64_t)i);
			if (ready(w))
				vp = w;
			else if (!any && w && READ_ONCE(w->vpp->upcall_entry))
				any = w;
		}
		if (!vp)
			vp = any;
	}
	if (!vp)
		return -EAGAIN;          /* nobody there can take it now: send it again */
	shake();                         /* chosen: it may block or wake now */
	struct event ev;                 /* no context: event_copy leaves it alone */
	ev.type = EV_WAKE;
	ev.token = token;
	ev.result = (uint64_t)from;
	ev.thread = ev.arg = 0;
	*to = vp;
	return event_post(vp, &ev, how);
}

/* SYS_seg_wake(addr, space id, VP index, token, flags): EV_WAKE(token)
   to that space, if it maps the segment the caller maps at addr.

   SEGWAKE_YIELD: the waker is about to wait for an answer (a semaphore
   ping-pong, a mutex hand-off, a request and its reply). If the VP we
   woke now waits on this CPU's run queue, give it the CPU at once rather
   than at the caller's next block: one switch between spaces instead of
   a post, a block and an idle on each side (hand-off scheduling, as in
   L4 or LRPC). The caller's VP goes back on the queue; the scheduler
   still takes the woken VP only within a quarter quantum of the fair
   choice (sched.c, rq_pop), and each space is charged what it runs. */
long sys_seg_wake(uint64_t addr, uint64_t sid, uint64_t vi, uint64_t token, uint64_t flags, uint64_t f)
{
	(void)f;
	struct space *me = myvp()->space;
	if (!token || (flags & ~(uint64_t)SEGWAKE_YIELD))
		return -EINVAL;          /* token 0 is the kernel's own "re-check all" */
	if (!sid || sid > 0x7fffffff)
		return -ESRCH;
	int id = seg_id_at(me, addr);    /* ids are never reused: no reference needed */
	if (!id)
		return -EFAULT;
	long r = -ESRCH;
	struct vp *to = 0, *yield = 0;
	int queued = 0;
	spin_lock(&table_lock);
	struct space *sp = space_lookup((int)sid);
	if (sp) {
		spin_lock(&sp->lock);
		if (sp->state != SP_ALIVE)
			r = -ESRCH;
		else if (!seg_mapped(sp, id))
			r = -EPERM;      /* it shares no such segment with us */
		else
			r = wake_post(sp, vi, token, (uint32_t)me->id, &to,
				      flags & SEGWAKE_YIELD ? EVP_WAKE_KEEP : EVP_WAKE);
		/* r == 1: we woke `to` from its idle wait and it is on no
		   queue, ours to place. On this CPU, the hand-off takes it
		   straight from here (vp_yield_to), else it is queued now. A
		   runnable VP on no queue is neither run nor freed by anyone
		   else meanwhile (only its own CPU frees a VP, after it ran).
		   Otherwise, read while sp->lock keeps the VP; after it, only
		   compared. */
		if (r == 1) {
			r = 0;
			if (to->cpu == mycpu())
				yield = to;
			else
				sched_enqueue(to);
		} else if (r == 0 && (flags & SEGWAKE_YIELD) && to->cpu == mycpu() && READ_ONCE(to->queued)) {
			yield = to;
			queued = 1;
		}
		spin_unlock(&sp->lock);
	}
	spin_unlock(&table_lock);
	shake();                         /* the woken VP may run, even exit, now */
	if (yield)
		vp_yield_to(yield, queued);
	return r;
}

/* self, a VP of sp, is about to block whole in SYS_wait, table_lock
   held. Cross-space wake-ups queued for it (or owed, or in its ring
   unread) would wait until it returns, while the waiter they are for
   may be what it waits for: xspace hostile's parent waited for its
   child, which posted until the parent's waiter had woken, and the
   waiter's EV_WAKE sat in the parent's blocked VP (the post had found
   it still running). So a sibling that can take events gets EV_WAKE(0):
   every cross-space waiter of sp re-checks. No post slips between this
   look and the block: SYS_seg_wake posts under table_lock too, so after
   this look it finds self blocked, and ready() sends it elsewhere. */
void wake_hand_off(struct space *sp, struct vp *self)
{
	if (!READ_ONCE(self->vpp->upcall_entry))
		return;
	spin_lock(&self->evlock);
	int owed = self->wake_lost || self->ring_tail != READ_ONCE(self->vpp->ring_head);
	for (int i = 0; i < self->evq_len && !owed; i++)
		owed = self->evq[(self->evq_head + (uint32_t)i) % EVQ_SIZE].type == EV_WAKE;
	spin_unlock(&self->evlock);
	if (!owed)
		return;
	spin_lock(&sp->lock);
	struct vp *to = 0;
	for (int i = 0; i < sp->nvp && !to; i++) {
		struct vp *w = vp_lookup(sp, (uint64_t)i);
		if (w != self && ready(w))
			to = w;
	}
	if (to && sp->state == SP_ALIVE) {
		struct event ev = { .type = EV_WAKE };
		event_post(to, &ev, EVP_WAKE);
	}
	spin_unlock(&sp->lock);
}

/* sp lost a segment (unmap, revoke): its waiters parked at user level on
   objects there must wake and find out (EV_WAKE(0): every one re-checks). */
void seg_wake_all(struct space *sp)
{
	spin_lock(&sp->lock);
	if (sp->state == SP_ALIVE) {
		struct event ev = { .type = EV_WAKE };
		struct vp *vp = 0, *any = 0;
		for (int i = 0; i < sp->nvp && !vp; i++) {
			struct vp *w = vp_lookup(sp, (uint64_t)i);
			if (ready(w))
				vp = w;
			else if (!any && w && READ_ONCE(w->vpp->upcall_entry))
				any = w;
		}
		if (vp || any)
			event_post(vp ? vp : any, &ev, EVP_WAKE);
	}
	spin_unlock(&sp->lock);
}
