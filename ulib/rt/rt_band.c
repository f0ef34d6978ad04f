/*
 * The real-time band (struct rtband, <animart/vprt.h>): real-time
 * priorities on the packages whose own policy has none (fifo, tutor,
 * naive), as POSIX and Linux order SCHED_FIFO/SCHED_RR threads: a
 * thread at a level above 0 (struct thread.prio, pt_level) runs before
 * any runnable thread of a lower level, and threads of level 0
 * (SCHED_OTHER) keep the package's own policy among themselves.
 *
 * The band is one queue per package, by level, highest first, FIFO
 * within a level (a thread switched out before its turn was over, at
 * the head of its level). It is installed the first time a thread of
 * the package gets a level above 0: its hooks take the policy's place
 * in struct rtpkg, and call the policy's, kept in the band, for level
 * 0. So a program whose threads are all at level 0 runs exactly the
 * policy's own paths (its yield, create+join and hand-offs pay
 * nothing); one that uses real-time priorities pays a test of the band
 * on each.
 *
 * Preemption, as prio's: a thread made runnable at a level above the
 * lowest level that some VP of the package runs makes that VP take an
 * upcall (rt_kick), whose preempt hook switches the running thread out;
 * a classic VP (naive) takes an interrupt instead, whose intr_run asks
 * rt_band_intr and yields. A thread that yields goes to others of its
 * level or above only. Waiters on one object are woken highest level
 * first (thread_ops.wait_first). What prio adds and the band does not:
 * real-time throttling, and a level-0 thread raised while it waits in
 * the policy's own queue stays there until its turn (it joins the band
 * at its next switch).
 */
#include <animart/vprt.h>

int (*rt_band_intr)(struct thread *t);

static inline struct rtpkg *pkg_of(struct uthread *t)
{
	return (struct rtpkg *)t->t.ops;   /* ops is rtpkg's first member */
}

static inline int top(struct rtband *b)
{
	return __atomic_load_n(&b->top, __ATOMIC_RELAXED);
}

/* t into the band at its level: at the head of the level if `first`,
   else at its tail. Lock held. */
static void put(struct rtband *b, struct uthread *t, int first)
{
	int l = t->t.prio;
	struct uthread **at = &b->head;
	while (*at && ((*at)->t.prio > l || (!first && (*at)->t.prio == l)))
		at = &(*at)->next;
	t->next = *at;
	*at = t;
	b->top = b->head->t.prio;
}

/* The band's head if its level is at least min (another VP may have
   taken the one the caller saw), or 0. */
static struct uthread *take(struct rtband *b, int min)
{
	spin_lock_by(&b->lock, 0);
	struct uthread *t = b->head;
	if (t && t->t.prio >= min) {
		b->head = t->next;
		b->top = b->head ? b->head->t.prio : 0;
	} else
		t = 0;
	spin_unlock_by(&b->lock, 0);
	return t;
}

/* A running thread's level; an idle VP is below every level. */
static int running_level(struct rtvp *w)
{
	struct uthread *c = rt_running(w);
	return c ? c->t.prio : -1;
}

/* A thread became runnable at level l: kick the VP that runs the
   lowest level below l, unless some VP idles (the runtime wakes it). */
static void preempt_lowest(struct rtpkg *p, int l)
{
	struct rtvp *low = 0;
	int lowest = l;
	for (int i = 0, n = p->nvps; i < n; i++) {
		struct rtvp *w = p->vps[i];
		int wl = running_level(w);
		if (wl < 0)
			return;
		if (wl < lowest) {
			lowest = wl;
			low = w;
		}
	}
	if (low)
		rt_kick(low);
}

static struct rtvp *enqueue(struct rtvp *v, struct uthread *t, int why)
{
	struct rtpkg *p = pkg_of(t);
	struct rtband *b = &p->band;
	if (!t->t.prio)
		return b->enqueue(v, t, why);
	if (p->slice_ns)
		rt_slice_note(v);        /* t waits: a slice for the thread on v */
	spin_lock_by(&b->lock, 0);
	put(b, t, why == RQ_RESCHED || why == RQ_PREEMPTED);
	spin_unlock_by(&b->lock, 0);
	if (why == RQ_NEW || why == RQ_UNBLOCK)
		preempt_lowest(p, t->t.prio);
	return 0;
}

/* The band's head first; a yielding cur gives way only to its level or
   above (0: it runs on), a real-time one never to the policy's. */
static struct uthread *pick(struct rtvp *v, struct uthread *cur)
{
	struct rtpkg *p = v->pkg;
	int l = top(&p->band);
	struct uthread *t;
	if (cur && cur->t.prio > 0)
		return l >= cur->t.prio ? take(&p->band, cur->t.prio) : 0;
	if (l && (t = take(&p->band, 1)))
		return t;
	return p->band.pick(v, cur);
}

/* After an upcall: a higher level waits. */
static int preempt(struct rtvp *v, struct uthread *cur)
{
	struct rtpkg *p = v->pkg;
	if (top(&p->band) > cur->t.prio)
		return 1;
	return p->band.preempt ? p->band.preempt(v, cur) : 0;
}

static void yield(struct thread *self);

/* A classic VP's interrupt (intr_run): does a higher level wait? (t
   may be another package's: kthread's; only a band's yields so.) */
static int outranked(struct thread *t)
{
	struct rtpkg *p = (struct rtpkg *)t->ops;
	return t->ops->yield == yield && top(&p->band) > t->prio;
}

/* The policy's slices for level 0 and SCHED_RR; SCHED_FIFO runs on. */
static int sliced(struct uthread *cur)
{
	struct rtpkg *p = pkg_of(cur);
	if (cur->t.prio && !cur->t.rr)
		return 0;
	return p->band.sliced ? p->band.sliced(cur) : 1;
}

/* A yield: the policy's own (its fast path) while neither the caller
   nor anyone waiting is real-time; else through pick. */
static void yield(struct thread *self)
{
	struct rtpkg *p = (struct rtpkg *)self->ops;
	if (!self->prio && !top(&p->band))
		p->band.yield(self);
	else
		rt_yield_other(self);
}

/* Waiters on one object: the highest level first, FIFO among equals. */
static int wait_first(const struct thread *a, const struct thread *b)
{
	return a->prio > b->prio;
}

/* t's level becomes l. Waiting in the band, it moves (or leaves it for
   the policy's queue); running lower than the band's head now, its VP is
   kicked. Waiting in the policy's queue, or blocked: only the field. */
static void reprio(struct uthread *t, int l)
{
	struct rtpkg *p = pkg_of(t);
	struct rtband *b = &p->band;
	spin_lock_by(&b->lock, 0);
	struct uthread **at = &b->head;
	while (*at && *at != t)
		at = &(*at)->next;
	int queued = *at != 0;
	if (queued) {
		*at = t->next;
		b->top = b->head ? b->head->t.prio : 0;
	}
	t->t.prio = l;
	spin_unlock_by(&b->lock, 0);
	if (queued) {
		rt_make_runnable(p, rt_vp_here(p), t, l ? RQ_UNBLOCK : RQ_YIELD);
		return;
	}
	if (top(b) > l)
		for (int i = 0, n = p->nvps; i < n; i++)
			if (rt_running(p->vps[i]) == t)
				rt_kick(p->vps[i]);
}

void rt_band_install(struct rtpkg *p)
{
	struct rtband *b = &p->band;
	if (p->reprio || p->no_band)
		return;                  /* (prio's own levels; det's token) */
	spin_lock_by(&b->lock, 0);
	if (!b->on) {
		b->enqueue = p->enqueue;
		b->pick = p->pick;
		b->preempt = p->preempt;
		b->sliced = p->sliced;
		b->yield = p->ops.yield;
		/* Everything that takes from the band first; the one way in,
		   enqueue, last: no thread is in the band before every VP
		   looks there. */
		__atomic_store_n(&p->pick, pick, __ATOMIC_RELEASE);
		__atomic_store_n(&p->preempt, preempt, __ATOMIC_RELEASE);
		__atomic_store_n(&p->sliced, sliced, __ATOMIC_RELEASE);
		__atomic_store_n(&p->ops.yield, yield, __ATOMIC_RELEASE);
		if (!p->ops.wait_first)
			__atomic_store_n(&p->ops.wait_first, wait_first, __ATOMIC_RELEASE);
		__atomic_store_n(&p->reprio, reprio, __ATOMIC_RELEASE);
		if (p->classic)
			rt_band_intr = outranked;
		__atomic_store_n(&p->enqueue, enqueue, __ATOMIC_RELEASE);
		__atomic_store_n(&b->on, 1, __ATOMIC_RELEASE);
	}
	spin_unlock_by(&b->lock, 0);
}

/* A fork's child: the queued threads are not in it (the hooks stay). */
void rt_band_fork(struct rtpkg *p)
{
	p->band.lock.locked = 0;
	p->band.head = 0;
	p->band.top = 0;
}
