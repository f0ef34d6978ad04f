/*
 * Timed waits at user level on upcall VPs (fifo, tutor, prio): Psyche's
 * way. A thread in a timed wait blocks in its package as an untimed wait
 * does, and waits in the timer queue of the VP it began on: a list by
 * deadline, under the VP's tq_lock. The VP keeps ONE kernel timer
 * (SYS_timer, token TQ_TOKEN) for the earliest of its queue's deadlines
 * the policy's own one-shot (rt_timer: fifo's time slices, prio's
 * throttle) and the runtime's time slice (rtpkg.slice_ns). When it
 * fires (rt_tq_fire, from drain: an upcall or the scheduler loop, idle
 * or not) every thread whose deadline has passed leaves the queue and is
 * woken with "timed out". A wake-up before that (a signal, a broadcast,
 * a post, a handler, a cancel) makes the thread runnable as any unblock
 * does, and the thread, once it runs (on whatever VP), takes itself off
 * the queue. So a sleeper holds no kernel resource at all: the kernel
 * sleeps it did (thread_park_timed) held two of the VP's EVQ_SIZE event
 * places each, and some 127 sleepers blocked the whole VP.
 *
 * The race of a wake-up and the deadline: the queue's lock orders the
 * thread's leaving against the expiry. The expiry, under the lock, sets
 * tq_out and then thread_unblock()s the thread (RUN -> PERMIT before its
 * park commits, PARKED -> RUN after); a thread already holding a permit
 * (woken first) is left alone and returns 0. A wake-up that comes
 * between the expiry's look and the thread's return finds it timed out:
 * its deadline has passed, and every caller looks at its condition again
 * (the POSIX layer's waits keep a grant that raced a timeout: pwait.c).
 *
 * CLOCK_REALTIME deadlines (DL_REALTIME) are converted once, at the
 * queue's offset tq_off; while any is queued the timer is armed with
 * TIMER_RTSET, so the kernel fires it at every clock set (and at once if
 * the offset has moved since tq_off). The fire then hands every such
 * wait back to its caller as a spurious wake-up (0), or a timeout if the
 * set clock is past its time: it waits again, converted anew, as the
 * kernel's SYS_futex_wait_rt waits did.
 */
#include <animart/vprt.h>
#include <animart/clock.h>
#include <animart/sys.h>

enum { TQ_NONE, TQ_TIMEDOUT, TQ_AGAIN };   /* tq_out */

static int64_t vp_rt_off(const struct rtvp *v)
{
	return __atomic_load_n(&pseudo_page(v->index)->rt_off, __ATOMIC_ACQUIRE);
}

/* Set v's kernel timer for the earlier of its queue's head and the
   policy's one-shot. On v, software interrupts off, tq_lock held (the
   head's tq_due is read under it: a thread that left may be queued
   elsewhere for later by now). */
static void tq_arm(struct rtvp *v)
{
	uint64_t at = v->tq_head ? v->tq_head->tq_due : 0;
	if (v->pol_at && (!at || v->pol_at < at))
		at = v->pol_at;
	if (v->slice_at && (!at || v->slice_at < at))
		at = v->slice_at;
	uint64_t flag = at && v->tq_nrt ? TIMER_RTSET : 0;
	if (at == v->tq_armed && flag == v->tq_flag && !v->tq_lost)
		return;
	long r = syscall3(SYS_timer, at ? at | flag : 0, TQ_TOKEN, (uint64_t)v->tq_off);
	v->tq_lost = r != 0;         /* -EAGAIN: the ring is full; again before idling */
	v->tq_armed = r ? 0 : at;
	v->tq_flag = r ? 0 : flag;
}

static void tq_unlink(struct rtvp *v, struct uthread *t)
{
	if (t->tq_prev)
		t->tq_prev->tq_next = t->tq_next;
	else
		v->tq_head = t->tq_next;
	if (t->tq_next)
		t->tq_next->tq_prev = t->tq_prev;
	else
		v->tq_tail = t->tq_prev;
	if (t->tq_dl & DL_REALTIME)
		v->tq_nrt--;
}

/* t, the calling thread, joins the queue of v, its VP (software
   interrupts off). From the tail: later waits mostly have later
   deadlines, so the walk is short. */
static void tq_add(struct rtvp *v, struct uthread *t, uint64_t dl)
{
	spin_lock_by(&v->tq_lock, 0);
	int rt = (dl & DL_REALTIME) != 0;
	if (rt && !v->tq_nrt++)
		v->tq_off = vp_rt_off(v);
	t->tq_dl = dl;
	t->tq_due = rt ? dl_boot(dl) : dl;
	t->tq_out = TQ_NONE;
	struct uthread *p = v->tq_tail;
	while (p && p->tq_due > t->tq_due)
		p = p->tq_prev;
	t->tq_prev = p;
	t->tq_next = p ? p->tq_next : v->tq_head;
	if (t->tq_next)
		t->tq_next->tq_prev = t;
	else
		v->tq_tail = t;
	if (p)
		p->tq_next = t;
	else
		v->tq_head = t;
	__atomic_store_n(&t->tq_vp, v, __ATOMIC_RELEASE);
	tq_arm(v);
	spin_unlock_by(&v->tq_lock, 0);
}

/* The calling thread, back from its block: off the queue if still on
   it. What the wait returns. */
static int tq_leave(struct uthread *t)
{
	vp_disable_self();           /* not switched while holding the lock */
	struct rtvp *v = __atomic_load_n(&t->tq_vp, __ATOMIC_ACQUIRE);
	if (v) {
		spin_lock_by(&v->tq_lock, 0);
		if (t->tq_vp == v) {     /* (else the expiry took it meanwhile) */
			tq_unlink(v, t);
			t->tq_vp = 0;
		}
		spin_unlock_by(&v->tq_lock, 0);
	}
	vp_enable_self();
	return t->tq_out == TQ_TIMEDOUT ? -ETIMEDOUT : 0;   /* (written before tq_vp: 0) */
}

/* rt_block_until on an upcall VP. Software interrupts stay off from
   the queueing to the block, so no signal handler runs in between; one
   may run after the block, before tq_leave, and wait itself: then the
   wait it interrupted ends as if woken (0: its caller looks again). */
int rt_tq_wait(struct uthread *self, uint64_t deadline)
{
	if (__atomic_load_n(&self->tq_vp, __ATOMIC_ACQUIRE))
		tq_leave(self);          /* (a handler's wait, inside ours) */
	struct rtvp *v = vp_pkg(vp_disable_self());
	if (now_ns() >= dl_boot(deadline)) {
		vp_enable_self();
		return -ETIMEDOUT;
	}
	tq_add(v, self, deadline);
	self->t.nvcsw++;
	rt_park(&self->t);           /* an expiry before the park leaves a permit */
	int r = tq_leave(self);
	self->tq_out = TQ_NONE;      /* (not the interrupted wait's answer) */
	return r;
}

/* t leaves v's queue with `out` and is woken (tq_lock held). One that
   holds a permit was woken first: it keeps its wake-up. */
static void tq_expire(struct rtvp *v, struct uthread *t, int out)
{
	tq_unlink(v, t);
	if (__atomic_load_n(&t->t.park, __ATOMIC_ACQUIRE) == PARK_PERMIT)
		out = TQ_NONE;
	t->tq_out = out;
	__atomic_store_n(&t->tq_vp, (struct rtvp *)0, __ATOMIC_RELEASE);
	if (out != TQ_NONE)
		thread_unblock(&t->t);
}

/* A clock set (the offset is not the one the queue's realtime waits
   were converted at): each looks again, or has timed out. */
static void tq_clockset(struct rtvp *v, uint64_t now)
{
	v->tq_off = vp_rt_off(v);
	for (struct uthread *t = v->tq_head, *n; t && v->tq_nrt; t = n) {
		n = t->tq_next;
		if (t->tq_dl & DL_REALTIME)
			tq_expire(v, t, dl_boot(t->tq_dl) <= now ? TQ_TIMEDOUT : TQ_AGAIN);
	}
}

int rt_tq_fire(struct rtvp *v, struct uthread *cur, const struct event *e)
{
	struct rtpkg *p = v->pkg;
	int saw = 0;
	uint64_t now = now_ns();
	spin_lock_by(&v->tq_lock, 0);
	v->tq_firing = 1;                /* (the wake-ups' slices: rt_slice_start) */
	v->tq_armed = v->tq_flag = 0;    /* a one-shot: gone */
	if (v->tq_nrt && vp_rt_off(v) != v->tq_off) {
		tq_clockset(v, now);
		saw = TQ_WOKE;
	}
	for (struct uthread *t; (t = v->tq_head) && t->tq_due <= now; saw = TQ_WOKE)
		tq_expire(v, t, TQ_TIMEDOUT);
	uint64_t pol = v->pol_at;
	if (pol && pol <= now)
		v->pol_at = 0;
	if (v->slice_at && v->slice_at <= now) {
		v->slice_at = 0;
		saw |= TQ_SLICE;
	}
	v->tq_firing = 0;
	tq_arm(v);
	spin_unlock_by(&v->tq_lock, 0);
	if (pol && pol <= now && p->timer) {
		if (p->timer(v, cur, v->pol_token))
			saw |= TQ_RESCHED;
	} else if (pol && pol <= now && p->event) {
		struct event pe = *e;    /* the policy's own, as if its timer fired */
		pe.token = v->pol_token;
		pe.arg = pol;
		if (p->event(v, cur, &pe))
			saw |= TQ_RESCHED;
	}
	return saw;
}

void rt_timer(struct rtvp *v, uint64_t at, uint64_t token)
{
	spin_lock_by(&v->tq_lock, 0);
	v->pol_at = at;
	v->pol_token = token;
	tq_arm(v);
	spin_unlock_by(&v->tq_lock, 0);
}

/*
 * Time slices (rtpkg.slice_ns: tutor, prio's SCHED_OTHER). A VP sets
 * its slice when a thread is made runnable on it (rt_make_runnable) and
 * none is set: the thread running there (or the next) may run on for
 * slice_ns, then drain has it yield (SAW_TURN). The turn sets the slice
 * again (the thread turned out is queued), unless the pick finds nobody
 * else (rt_run_thread). So a thread that runs alone pays nothing, and
 * one that computes while another waits gives it a turn each slice_ns,
 * as Linux does SCHED_OTHER threads (glibc's programs count on it: a
 * main that waits on a worker that computes until main sets a flag).
 * On v, software interrupts off.
 */
void rt_slice_start(struct rtvp *v)
{
	if (v->pkg->classic) {
		rt_due_slice(v);         /* (no upcalls: rt_due.c) */
		return;
	}
	uint64_t at = now_ns() + v->pkg->slice_ns;
	if (v->tq_firing) {          /* a wake-up of rt_tq_fire's, which holds */
		v->slice_at = at;    /* tq_lock and arms the timer as it ends */
		return;
	}
	spin_lock_by(&v->tq_lock, 0);
	v->slice_at = at;
	tq_arm(v);
	spin_unlock_by(&v->tq_lock, 0);
}

/* Before v idles, if its last arming failed (software interrupts off). */
void rt_tq_rearm(struct rtvp *v)
{
	spin_lock_by(&v->tq_lock, 0);
	tq_arm(v);
	spin_unlock_by(&v->tq_lock, 0);
}
