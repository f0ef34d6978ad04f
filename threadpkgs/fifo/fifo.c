/*
 * fifo: a first-class user-level thread package (Psyche-style), as a
 * policy on the VP runtime (<vprt.h>), which does the upcalls, switches
 * and descriptors.
 *
 * Each VP of the package has a FIFO run queue; idle VPs steal. On a
 * preemption warning the runtime hands the interrupted thread to enqueue
 * (RQ_WARNED: the tail of the shortest queue) and gives the VP up; after
 * a preemption (RQ_PREEMPTED) the thread goes to the head of its VP's
 * queue, so a preempted lock holder is the first thing the VP runs when
 * it comes back. A per-VP timer gives threads time slices (1 ms): at the
 * end of one the running thread moves to the shortest queue and the VP
 * evens out queue lengths with its peers, so threads share all VPs.
 *
 * The yield fast path (rotate) swaps places with the head of the VP's
 * own queue under one lock round trip, queueing the yielding thread
 * before the switch with lc.busy set. A busy thread is only ever in the
 * queue of the VP running its switch, and every move between queues
 * takes threads that are not busy (pop's `other`); so a VP popping its
 * own queue finds no busy thread, and rotate need not look.
 */
#include <sys.h>
#include <clock.h>
#include <vprt.h>
#include "fifo.h"

struct fvp {
	struct rtvp v;               /* first: the runtime's */
	struct spin lock;            /* the run queue */
	struct uthread *tail;        /* circular: tail->next is the head */
	volatile int len;
	int armed;                   /* the time-slice timer is set */
	unsigned seed;               /* shortest()'s ties */
};

uint64_t fifo_warn_ns = 1000000;      /* preemption warning asked for (0: none) */
uint64_t fifo_stack_size = RT_STACK;   /* stack of each new thread */
uint64_t fifo_slice_ns = 1000000;     /* time slice of a thread (0: none) */
struct fifo_stats fifo_stats;

static struct rtpkg fifo;

static inline struct fvp *fvp_at(int i)
{
	return (struct fvp *)fifo.vps[i];
}

/* A queue is a circular list through `next`, tail->next being its head:
   a push, a pop and rotate's swap each start from the one pointer. */
static void push(struct fvp *f, struct uthread *t, int at_head)
{
	spin_lock_by(&f->lock, 0);
	struct uthread *tail = f->tail;
	if (!tail)
		f->tail = t->next = t;
	else {
		t->next = tail->next;
		tail->next = t;
		if (!at_head)
			f->tail = t;
	}
	f->len++;
	spin_unlock_by(&f->lock, 0);
}

/* Take the head of f's queue. A VP taking from another's (`other`)
   leaves a head that is still leaving its stack there: waiting for it
   could mean waiting for a vCPU the host has descheduled. */
static struct uthread *pop(struct fvp *f, int other)
{
	if (!f->len)
		return 0;
	spin_lock_by(&f->lock, 0);
	struct uthread *tail = f->tail, *t = tail ? tail->next : 0;
	if (t && other && rt_busy(t))
		t = 0;
	if (t) {
		if (t == tail)
			f->tail = 0;
		else
			tail->next = t->next;
		f->len--;
	}
	spin_unlock_by(&f->lock, 0);
	return t;
}

/*
 * Even out run queues, at the end of a time slice, a warning or a
 * preemption of f: move threads from f's queue to the shortest peer's
 * until f's is no longer the longer, then take threads from the longest
 * peer's while it is longer than f's by two or more. A VP steals only when
 * its own queue is empty, so without this a VP with one thread and one
 * with seven stay that way, and their threads get shares 7x apart.
 */
static void balance(struct fvp *f)
{
	int n = fifo.nvps;
	if (n < 2)
		return;
	struct uthread *t;
	for (;;) {
		struct fvp *lo = 0, *hi = 0;
		for (int i = 0; i < n; i++) {
			struct fvp *w = fvp_at(i);
			if (w == f)
				continue;
			if (!lo || w->len < lo->len)
				lo = w;
			if (!hi || w->len > hi->len)
				hi = w;
		}
		if (f->len > lo->len && (t = pop(f, 0)))
			push(lo, t, 0);
		else if (hi->len > f->len + 1 && (t = pop(hi, 1)))
			push(f, t, 0);      /* not busy: fine in our own queue (see top) */
		else
			return;
		fifo_stats.moved++;
	}
}

/*
 * The VP with the shortest queue, f's own included, ties broken at
 * random. A thread whose time slice ends goes there: even queues alone
 * do not make threads' shares even when VPs get unequal processor time
 * (more VPs than CPUs, a host that deschedules a vCPU), but threads that
 * keep changing VPs share them all — as the kernel does with VPs.
 */
static unsigned xorshift(unsigned *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static struct fvp *shortest(struct fvp *f)
{
	struct fvp *best = f;
	int ties = 1;
	for (int i = 0, n = fifo.nvps; i < n; i++) {
		struct fvp *w = fvp_at(i);
		if (w == f || w->len > best->len)
			continue;
		if (w->len < best->len) {
			best = w;
			ties = 1;
		} else if (xorshift(&f->seed) % ++ties == 0)
			best = w;
	}
	return best;
}

static struct rtvp *enqueue(struct rtvp *v, struct uthread *t, int why)
{
	struct fvp *f = (struct fvp *)v, *to;
	switch (why) {
	case RQ_PREEMPTED:           /* first when the VP is back */
		push(f, t, 1);
		balance(f);
		return v;
	case RQ_WARNED:
	case RQ_RESCHED:             /* its time slice is over */
		push(to = shortest(f), t, 0);
		balance(f);
		return &to->v;
	default:
		/* Where it last ran (an unblock: the VP it blocked on), else
		   the caller's VP, else the first. */
		if (why == RQ_UNBLOCK && t->t.vpp)
			to = (struct fvp *)rt_vp_of(&fifo, t->t.vpp);
		else
			to = f;
		if (!to && !(to = f)) {
			/* From another package: some fifo VP, maybe still starting */
			while (!__atomic_load_n(&fifo.nvps, __ATOMIC_ACQUIRE))
				sys_yield();
			to = fvp_at(0);
		}
		push(to, t, 0);
		return &to->v;
	}
}

static struct uthread *pick(struct rtvp *v, struct uthread *cur)
{
	(void)cur;
	struct fvp *f = (struct fvp *)v;
	struct uthread *t = pop(f, 0);
	for (int i = 0, n = fifo.nvps; !t && i < n; i++) {
		struct fvp *w = fvp_at(i);
		if (w != f && w->len > 0 && (t = pop(w, 1)))
			fifo_stats.steals++;
	}
	return t;
}

/* Yield, fast path: swap places with the head of our own queue under one
   lock round trip. Anything unusual (an empty queue, a contended lock)
   returns 0: the runtime's slow path, which also steals. */
static struct uthread *rotate(struct rtvp *v, struct uthread *self)
{
	struct fvp *f = (struct fvp *)v;
	if (!spin_trylock(&f->lock))
		return 0;
	struct uthread *tail = f->tail;
	if (!tail) {
		spin_unlock_by(&f->lock, 0);
		return 0;
	}
	struct uthread *next = tail->next;      /* the head */
	if (next == tail)                       /* it was alone: now we are */
		self->next = self;
	else {
		self->next = next->next;
		tail->next = self;
	}
	f->tail = self;
	spin_unlock_by(&f->lock, 0);
	return next;
}

/*
 * Time slices. Each VP keeps a one-shot user timer (SYS_timer, token
 * SLICE_TOKEN) set while it runs threads; when it fires, the running
 * thread goes to the tail of the shortest queue (shortest, balance). This
 * is what keeps threads' shares even across VPs when nothing else does:
 * on a CPU of its own a VP gets no warnings (the kernel warns only when
 * another VP waits). The timer is set again only when the VP runs a
 * thread, so an idle VP is not woken for nothing.
 */
#define SLICE_TOKEN 0x66696669736c6963UL

static void on_run(struct rtvp *v)
{
	struct fvp *f = (struct fvp *)v;
	if (f->armed || !fifo_slice_ns)
		return;
	f->armed = 1;
	syscall2(SYS_timer, now_ns() + fifo_slice_ns, SLICE_TOKEN);
}

static int event(struct rtvp *v, struct uthread *cur, const struct event *e)
{
	struct fvp *f = (struct fvp *)v;
	if (e->type != EV_TIMER || e->token != SLICE_TOKEN)
		return 0;                /* signals just wake us */
	fifo_stats.slices++;
	f->armed = 0;
	if (cur && !f->len) {        /* out of time, but nobody waits here: */
		balance(f);          /* (a peer may have two more than we) */
		return 0;            /* moving cur would only idle this VP */
	}
	return cur != 0;
}

static void init_vp(struct rtvp *v)
{
	struct fvp *f = (struct fvp *)v;
	f->seed = (unsigned)v->index * 2654435761u + 1;
	v->vpp->warn_ns = fifo_warn_ns;
	v->vpp->want_preempted = 1;
}

static struct rtpkg fifo = {
	.ops = RT_OPS(PKG_NAME),
	.vp_size = sizeof(struct fvp),
	.init_vp = init_vp,
	.enqueue = enqueue,
	.pick = pick,
	.rotate = rotate,
	.event = event,
	.on_run = on_run,
	.stack_size = &fifo_stack_size,
	.stats = &fifo_stats.rt,
};

RT_PACKAGE(fifo, 0);             /* no priorities */
