/*
 * Events and upcalls (software interrupts), the kernel half of the
 * protocol in <anima/vp.h>.
 *
 * Events for a VP wait in a kernel queue; the VP page ring is filled only
 * while that VP is in the kernel on its own CPU -- when it leaves for user
 * mode (upcall_return), or when the event is posted by the VP's own kernel
 * path with nothing queued before it (event_post's shortcut) -- so the
 * kernel never writes a VP page while user code on that VP runs. Every
 * field read from the VP page is read once and checked before use: user
 * code can write any byte of it at any time.
 */
#include "kernel.h"

/* Field by field, straight into *c (often the VP page): no temporary. */
void ctx_from_tf(struct uctx *c, const struct trapframe *tf)
{
	c->rax = tf->rax; c->rbx = tf->rbx; c->rcx = tf->rcx; c->rdx = tf->rdx;
	c->rsi = tf->rsi; c->rdi = tf->rdi; c->rbp = tf->rbp; c->rsp = tf->rsp;
	c->r8 = tf->r8; c->r9 = tf->r9; c->r10 = tf->r10; c->r11 = tf->r11;
	c->r12 = tf->r12; c->r13 = tf->r13; c->r14 = tf->r14; c->r15 = tf->r15;
	c->rip = tf->rip; c->rflags = tf->rflags;
}

/*
 * Copy an event: the header always, the context only for the events
 * that carry one (it is 3/4 of the event). In the ring, the context of
 * other events is whatever this VP's earlier events left there: the ABI
 * says it means nothing, and it is this VP's own data. always_inline,
 * as ring_put: every event passes here. Out of line (as gcc chose once
 * event_post_fault gave ring_put another caller) they cost a self-signal
 * 12 instructions more (ubench upcall.profile's kernel part, 431 -> 443);
 * the mask test saves 3 more than three compares.
 */
#define CTX_EVENTS (1u << EV_UNBLOCKED | 1u << EV_PREEMPTED | 1u << EV_FAULT)
_Static_assert(EV_MAX < 32, "CTX_EVENTS is a 32-bit mask");

static inline __attribute__((always_inline)) void event_copy(struct event *d, const struct event *s)
{
	d->type = s->type;
	d->vp = s->vp;
	d->token = s->token;
	d->result = s->result;
	d->thread = s->thread;
	d->arg = s->arg;
	d->seq = s->seq;
	if (s->type < 32 && (CTX_EVENTS >> s->type & 1))
		d->ctx = s->ctx;
}

/* Copy ev into vp's ring at the kernel's tail and advance the tail; the
   caller holds vp->evlock and has checked there is room. Returns the slot.
   (The tail reaches the VP page, p->ring_tail, when the caller says so.) */
static inline __attribute__((always_inline)) struct event *ring_put(struct vp *vp, const struct event *ev)
{
	struct event *d = &vp->vpp->ring[vp->ring_tail++ % RING_SIZE];
	event_copy(d, ev);
	return d;
}

static int in_window(struct vp *vp, const struct trapframe *tf)
{
	uint64_t lo = READ_ONCE(vp->vpp->resume_lo), hi = READ_ONCE(vp->vpp->resume_hi);
	return tf->rip >= lo && tf->rip < hi;
}

/* Would an event now reach the VP by upcall (rather than being queued)? */
int upcalls_on(struct vp *vp, const struct trapframe *tf)
{
	return READ_ONCE(vp->vpp->upcall_entry) && !READ_ONCE(vp->vpp->disabled) && !in_window(vp, tf);
}

/*
 * Admission. A VP's kernel queue is a fixed ring of EVQ_SIZE events, so a
 * post never allocates and never fails for lack of memory. Room is
 * promised ahead only to an armed user timer's EV_TIMER (event_reserve,
 * posted with EVP_RESERVED: it cannot fail). A thread-mode blocking op
 * posts its EV_BLOCKED with EVP_START, admitted while any place is free
 * (kop_wait blocks the VP classically if none is); its EV_UNBLOCKED
 * comes with EVP_DONE, admitted while EVQ_SPARE places stay free for
 * those and signals: refused, the completed kop waits on the VP's done
 * list (kop.c), so a waiting thread holds no place, and any number of
 * them may wait at once (up to MAXKOP_SPACE, charged).
 * Signals (EVP_ADMIT) are admitted only while room remains beyond the
 * reservations, else -EAGAIN. Warnings and preemption notices
 * (EVP_ADVISORY) are dropped when there is no room, and counted in the
 * pseudo page's events_dropped. Cross-space wake-ups (EVP_WAKE) are
 * admitted as signals are, but when there is no room they are coalesced,
 * not refused: the VP owes itself one EV_WAKE with token 0 ("re-check
 * every cross-space waiter"), queued as soon as there is room. So a
 * hostile sender costs the VP at most EVQ_SIZE events and one flag, and
 * no wake-up is lost (counted in events_dropped).
 */
int event_reserve(struct vp *vp, int n)
{
	spin_lock(&vp->evlock);
	int ok = vp->evq_len + vp->ev_reserved + n <= EVQ_SIZE;
	if (ok)
		vp->ev_reserved += n;
	spin_unlock(&vp->evlock);
	return ok ? 0 : -EAGAIN;
}

/* Give back reservations an operation will not use (a cancelled timer). */
void event_unreserve(struct vp *vp, int n)
{
	spin_lock(&vp->evlock);
	vp->ev_reserved -= MIN(n, vp->ev_reserved);
	spin_unlock(&vp->evlock);
}

/* Queue ev for vp under the admission rule `how` (EVP_*). Returns 0, or
   -EAGAIN when a signal, an EV_BLOCKED, an EV_UNBLOCKED or an advisory
   event finds no room. EVP_WAKE_KEEP is EVP_WAKE for a caller that
   places an idle VP it wakes itself (SYS_seg_wake's directed yield):
   then 1, the VP runnable and on no queue (vp_claim). */
int event_post(struct vp *vp, const struct event *ev, int how)
{
	/* Every event (signal, timer, completion, preemption) comes through
	   here: a post to a freed VP would write freed memory and spin on a
	   "lock" in it (the user-timer bug vp_exit now prevents). Stop loudly. */
	if (vp->magic != VP_MAGIC)
		panic("event_post: event type %d for a freed VP", ev->type);
	spin_lock(&vp->evlock);
	if (how == EVP_RESERVED && vp->ev_reserved > 0)
		vp->ev_reserved--;        /* the room promised to it */
	else if (how == EVP_DONE && vp->evq_len + vp->ev_reserved + EVQ_SPARE >= EVQ_SIZE) {
		spin_unlock(&vp->evlock);    /* the caller keeps it (kop.c's done list) */
		return -EAGAIN;
	} else if (how == EVP_RESERVED && memcheck) {
		/* a reservation went missing: a kernel bug, caught in test builds */
		panic("event_post: event type %d without its reservation", ev->type);
	} else if (vp->evq_len + vp->ev_reserved >= EVQ_SIZE && (how == EVP_WAKE || how == EVP_WAKE_KEEP)) {
		/* A cross-space wake-up finds no room: coalesce it (and any
		   more) into one EV_WAKE(0), owed until there is room
		   (upcall_return): never lost, never more than one. */
		int idle = vp->idle_wait;
		vp->wake_lost = 1;
		spin_unlock(&vp->evlock);
		__atomic_fetch_add(&vp->pp->events_dropped, 1, __ATOMIC_RELAXED);
		if (idle)
			vp_wake(vp);
		return 0;
	} else if (vp->evq_len + vp->ev_reserved >= EVQ_SIZE) {
		spin_unlock(&vp->evlock);
		if (how != EVP_ADMIT && how != EVP_START)   /* advisory (or, by a kernel bug, unreserved) */
			__atomic_fetch_add(&vp->pp->events_dropped, 1, __ATOMIC_RELAXED);
		return -EAGAIN;
	}
	/* Posting to the VP this CPU is running, in the kernel on its way
	   back to user mode, or to one idle in SYS_vp_idle (in the kernel
	   too: idle_wait is set and cleared under evlock), with nothing
	   queued before: write the ring now. Its user code is not running,
	   so the ring is not being read; its return to user mode finds the
	   event there (ring_seen) and sets pending or upcalls, with no copy
	   from the queue (a cross-space wake-up's usual case). */
	int idle = vp->idle_wait, mine = vp == myvp();
	struct event *k = 0;
	if ((mine || idle) && !vp->evq_len && READ_ONCE(vp->vpp->upcall_entry)) {
		uint32_t head = READ_ONCE(vp->vpp->ring_head);
		if ((uint32_t)(vp->ring_tail - head) < RING_SIZE) {
			k = ring_put(vp, ev);
			vp->vpp->ring_tail = vp->ring_tail;
			if (mine) {
				k->vp = vp->index;
				k->seq = ++vp->ev_seq;
				spin_unlock(&vp->evlock);
				__atomic_fetch_add(&vp->pp->events, 1, __ATOMIC_RELAXED);
				return 0;
			}
		}
	}
	if (!k) {
		k = &vp->evq[(vp->evq_head + vp->evq_len++) % EVQ_SIZE];
		event_copy(k, ev);
	}
	k->vp = vp->index;
	k->seq = ++vp->ev_seq;
	spin_unlock(&vp->evlock);
	shake();                  /* posted: the VP may take it (or block) now */
	__atomic_fetch_add(&vp->pp->events, 1, __ATOMIC_RELAXED);
	if (idle && how == EVP_WAKE_KEEP)
		return vp_claim(vp);     /* 1: woken and on no queue, the caller places it */
	if (idle)
		vp_wake(vp);
	else if (vp->state == VP_RUNNING && vp->cpu != mycpu())
		lapic_ipi(vp->cpu->apic_id, T_RESCHED);    /* deliver it soon */
	return 0;
}

/*
 * EV_FAULT for the VP this CPU runs, in the kernel for its own user fault
 * (fault.c): written into the ring now, behind whatever an upcall VP's
 * kernel queue still holds (moved there first: it came before), so the
 * return to user mode delivers it at once. A classic VP's queue is its
 * interrupts (intr.c), left where they are. -EAGAIN if the ring has no
 * room: the caller kills as before. Nothing is held beyond the ring.
 */
int event_post_fault(struct vp *vp, struct event *ev, int classic)
{
	struct vp_page *p = vp->vpp;
	uint32_t head = READ_ONCE(p->ring_head);
	if ((uint32_t)(vp->ring_tail - head) >= RING_SIZE)
		return -EAGAIN;          /* full, or a bad head (the kill says what faulted) */
	spin_lock(&vp->evlock);
	while (!classic && vp->evq_len && (uint32_t)(vp->ring_tail - head) < RING_SIZE) {
		ring_put(vp, &vp->evq[vp->evq_head++ % EVQ_SIZE]);
		vp->evq_len--;
	}
	int ok = (classic || !vp->evq_len) && (uint32_t)(vp->ring_tail - head) < RING_SIZE;
	if (ok) {
		ev->vp = (uint32_t)vp->index;
		ev->seq = ++vp->ev_seq;
		ring_put(vp, ev);
		vp->fault_at = vp->ring_tail;
		vp->fault_out = 1;
	}
	spin_unlock(&vp->evlock);
	p->ring_tail = vp->ring_tail;
	if (ok)
		__atomic_fetch_add(&vp->pp->events, 1, __ATOMIC_RELAXED);
	return ok ? 0 : -EAGAIN;
}

/* Forget whatever is still queued (the VP is being freed; vp_free frees
   the ring's pages). */
void event_drain(struct vp *vp)
{
	vp->evq_head = 0;
	vp->evq_len = 0;
	vp->ev_reserved = 0;
}

static void bad_page(struct vp *vp, const char *what, uint64_t val, const struct trapframe *tf)
{
	char d[80];
	ksnprintf(d, sizeof d, "VP %d page: %s = %#lx", vp->index, what, val);
	space_kill(vp->space, "bad VP page", val, tf->rip, d);
	vp_exit();
}

/* Last step before returning to user mode: deliver what is queued. */
void upcall_return(struct vp *vp, struct trapframe *tf)
{
	struct vp_page *p = vp->vpp;
	if (vp->preempted) {
		vp->preempted = 0;
		struct event ev = { .type = EV_PREEMPTED, .thread = READ_ONCE(p->current_thread) };
		ctx_from_tf(&ev.ctx, tf);
		event_post(vp, &ev, EVP_ADVISORY);
	}
	uint64_t entry = READ_ONCE(p->upcall_entry);
	if (vp->done && entry)
		kop_post_done(vp);       /* completions owed, as places free */
	if (!entry) {                /* classic VP: nothing to deliver to */
		if (vp->evq_len)
			intr_return(vp, tf);   /* unless it takes interrupts (intr.c) */
		return;
	}
	/* Something to deliver: events in the kernel queue, or events still
	   in the ring that were copied there while the VP was disabled, now
	   that it has really enabled (vp_enable enters the kernel for them).
	   Not inside the resume window: code there is still on its way out
	   of a handler that is consuming the ring. */
	uint32_t head = READ_ONCE(p->ring_head);
	int window = in_window(vp, tf);
	int undelivered = head != vp->ring_tail && !READ_ONCE(p->disabled) && !window;
	uint32_t copied = vp->ring_seen;     /* ring_tail at our last return */
	if (!vp->evq_len && !undelivered && vp->ring_tail == copied && !vp->wake_lost)
		return;
	if ((uint32_t)(vp->ring_tail - head) > RING_SIZE)
		bad_page(vp, "ring_head", head, tf);
	int more = 0;
	if (vp->evq_len || vp->wake_lost) {
		spin_lock(&vp->evlock);
		while (vp->evq_len && (uint32_t)(vp->ring_tail - head) < RING_SIZE) {
			ring_put(vp, &vp->evq[vp->evq_head++ % EVQ_SIZE]);
			vp->evq_len--;
		}
		if (vp->wake_lost && vp->evq_len + vp->ev_reserved < EVQ_SIZE) {
			/* the coalesced wake-ups, behind everything queued before */
			struct event *k = &vp->evq[(vp->evq_head + vp->evq_len++) % EVQ_SIZE];
			struct event w = { .type = EV_WAKE, .vp = (uint32_t)vp->index, .seq = ++vp->ev_seq };
			event_copy(k, &w);
			vp->wake_lost = 0;
			if ((uint32_t)(vp->ring_tail - head) < RING_SIZE) {
				ring_put(vp, &vp->evq[vp->evq_head++ % EVQ_SIZE]);
				vp->evq_len--;
			}
		}
		more = vp->evq_len != 0 || vp->done;
		spin_unlock(&vp->evlock);
		p->ring_tail = vp->ring_tail;
	}
	vp->ring_seen = vp->ring_tail;

	if (READ_ONCE(p->disabled) && !window) {
		if (vp->ring_tail != copied || more)
			p->pending = more ? 2 : 1;  /* the resume routine will see it */
		return;
	}
	uint64_t stack = READ_ONCE(p->upcall_stack);
	if (entry < USER_BASE || entry >= USER_TOP)
		bad_page(vp, "upcall_entry", entry, tf);
	if (stack <= USER_BASE || stack > USER_TOP)
		bad_page(vp, "upcall_stack", stack, tf);
	/* In the resume window, `save` still holds the full context being
	   restored: keep it, and drop the half-restored registers. */
	if (!window)
		ctx_from_tf(&p->save, tf);
	p->disabled = 1;
	p->pending = more ? 2 : 0;
	tf->rip = entry;
	tf->rsp = (stack & ~15UL) - 8;      /* as if called: rsp+8 is 16-aligned */
	tf->rdi = VPPAGE_BASE + (uint64_t)vp->index * PGSIZE;
	tf->rsi = PSEUDO_BASE + (uint64_t)vp->index * PGSIZE;
	tf->rflags = RFLAGS_IF | 0x2;
	vp->pp->upcalls++;
	trace(TR_UPCALL, vp, vp->ring_tail - head);
}

/* SYS_vp_idle: give up the processor until an event arrives. */
long sys_vp_idle(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	struct vp *vp = myvp();
	spin_lock(&vp->evlock);
	if (vp->evq_len || vp->wake_lost || vp->done || vp->ring_tail != READ_ONCE(vp->vpp->ring_head) ||
	    vp->space->state != SP_ALIVE) {
		spin_unlock(&vp->evlock);
		return 0;
	}
	vp->idle_wait = 1;
	vp_block(&vp->evlock);
	spin_lock(&vp->evlock);
	vp->idle_wait = 0;
	spin_unlock(&vp->evlock);
	return 0;
}
