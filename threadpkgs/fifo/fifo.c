/*
 * fifo: a first-class user-level thread package (Psyche-style), as a
 * policy on the VP runtime (<animart/vprt.h>), which does the upcalls, switches
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
 * The run queues are the runtime's per-VP local queues, so a yield is the
 * runtime's fast path (rtpkg.local_yield): it swaps places with the head
 * of the VP's own queue under one lock round trip. Every move between
 * queues takes threads that are not busy (pop's `other`).
 */
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/vprt.h>
#include "fifo.h"

/* enqueue and pick are on every hand-off (make bench counts them): no
   frame pointer, as in the runtime's switch paths. */
#pragma GCC optimize("omit-frame-pointer")

struct fvp {
	struct rtvp v;               /* first: the runtime's (with the run queue) */
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

/* The run queues are the runtime's local queues (rt_lq_*). */
static inline void push(struct fvp *f, struct uthread *t, int at_head)
{
	rt_lq_push(&f->v, t, at_head);
}

/* Push onto a peer's queue from here: the peer may idle in the kernel
   (it looked at its queue before we pushed), so wake it. */
static void push_peer(struct fvp *to, struct uthread *t)
{
	rt_lq_push(&to->v, t, 0);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* pairs with the idle loop's */
	if (to->v.idle)
		rt_kick(&to->v);
}

static inline struct uthread *pop(struct fvp *f, int other)
{
	return rt_lq_pop(&f->v, other);
}

static inline int len(struct fvp *f)
{
	return f->v.lq_len;
}

/* Is w's VP on a CPU now (its pseudo-register page says so)? Threads
   queued on a VP that is off its CPU wait for the kernel to give it one
   back: a whole quantum, or more. */
static inline int oncpu(struct fvp *w)
{
	return __atomic_load_n(&pseudo_page(w->v.index)->oncpu, __ATOMIC_RELAXED) != 0;
}

/* A queue's length as a place to put a thread: a VP off its CPU counts
   as full, so threads go to it only when every VP is off. */
#define OFF_CPU 1000000
static inline int load(struct fvp *w)
{
	return len(w) + (oncpu(w) ? 0 : OFF_CPU);
}

/*
 * Even out run queues, at the end of a time slice, a warning or a
 * preemption of f: move threads from f's queue to the shortest peer's
 * while f's is longer by two or more, then take threads from the longest
 * peer's while it is longer than f's by two or more. A VP steals only when
 * its own queue is empty, so without this a VP with one thread and one
 * with seven stay that way, and their threads get shares 7x apart.
 *
 * A move takes the thread queued last (the tail), and only where it
 * narrows the gap. Moving whenever f's queue was merely the longer, and
 * its head, starved threads: with 5 threads on 2 VPs the queues differ by
 * one, so each slice end moved a thread and swapped which queue was the
 * longer, and the head moved away at its turn waited again at the other
 * queue's tail (two threads got a fifteenth of the others' share; a thread
 * waking from a sleep ran 780 ms late; test_fifo.py).
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
			if (!lo || load(w) < load(lo))
				lo = w;     /* a VP off its CPU only if all are */
			if (!hi || len(w) > len(hi))
				hi = w;
		}
		if (len(f) > len(lo) + 1 && oncpu(lo) && (t = rt_lq_pop_tail(&f->v, 0)))
			push_peer(lo, t);
		else if (len(hi) > len(f) + 1 && (t = rt_lq_pop_tail(&hi->v, 1)))
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
	int ties = 1, lbest = load(f);
	for (int i = 0, n = fifo.nvps; i < n; i++) {
		struct fvp *w = fvp_at(i);
		int l = w == f ? OFF_CPU * 2 : load(w);
		if (l > lbest)
			continue;
		if (l < lbest) {
			best = w;
			lbest = l;
			ties = 1;
		} else if (xorshift(&f->seed) % ++ties == 0)
			best = w;
	}
	return best;
}

/* The shortest queue but f's (0 if f is alone), of a VP on its CPU if
   there is one. */
static struct fvp *shortest_other(struct fvp *f)
{
	struct fvp *best = 0;
	int lbest = 0;
	for (int i = 0, n = fifo.nvps; i < n; i++) {
		struct fvp *w = fvp_at(i);
		int l;
		if (w != f && (!best || (l = load(w)) < lbest)) {
			best = w;
			lbest = load(w);
		}
	}
	return best;
}

/*
 * Threads stranded on peers that are off their CPUs come here (f runs).
 * Balancing evens out queue *lengths*, but a VP the kernel has preempted
 * keeps its queued threads until it runs again, a quantum or more, while
 * the threads of running VPs go on: on 2 CPUs with 4 VPs, threads' yield
 * counts drifted 4x apart. So at each slice end and before idling, a
 * running VP takes the queued threads of every peer that is off its CPU
 * (not busy ones: those are mid-switch on that VP), and balance() spreads
 * them over the running VPs.
 */
static void rescue(struct fvp *f)
{
	for (int i = 0, n = fifo.nvps; i < n; i++) {
		struct fvp *w = fvp_at(i);
		if (w == f || !len(w) || oncpu(w))
			continue;
		for (struct uthread *t; (t = pop(w, 1)); fifo_stats.moved++)
			push(f, t, 0);
	}
}

/* A thread taken off VP f by the runtime: preempted (first when the VP
   is back), or out of its time slice (the shortest queue). At a warning
   f is about to lose its CPU, so its whole queue goes to its peers with
   the warned thread: no thread waits with a VP that is off its CPU.
   (Without that, next to kthread's busy VPs the threads queued on a VP
   the kernel served less got a quarter of their peers' yields.) */
static __attribute__((noinline)) struct rtvp *requeue(struct fvp *f, struct uthread *t, int why)
{
	struct fvp *to = f, *w;
	if (why == RQ_PREEMPTED)
		push(f, t, 1);
	else if (why == RQ_WARNED && (w = shortest_other(f))) {
		push_peer(to = w, t);
		for (struct uthread *u; (u = pop(f, 0)); fifo_stats.moved++) {
			/* Spread over peers on a CPU; with none, keep them
			   together: the next VP to run takes them all (steal) */
			struct fvp *x = shortest_other(f);
			push_peer(oncpu(x) ? x : to, u);
		}
		return &to->v;
	} else {
		rescue(f);
		if ((to = shortest(f)) != f)
			push_peer(to, t);
		else
			push(f, t, 0);
	}
	balance(f);
	return &to->v;
}

/* From another package, before any fifo VP has joined: wait for one. */
static __attribute__((noinline)) struct fvp *first_vp(void)
{
	while (!__atomic_load_n(&fifo.nvps, __ATOMIC_ACQUIRE))
		sys_yield();
	return fvp_at(0);
}

static struct rtvp *enqueue(struct rtvp *v, struct uthread *t, int why)
{
	struct fvp *f = (struct fvp *)v, *to = f;
	if (why >= RQ_PREEMPTED)
		return requeue(f, t, why);
	/* An unblock goes where the thread last ran (the VP it blocked on),
	   anything else to the caller's VP (or the first). */
	if (why == RQ_UNBLOCK && t->t.vpp)
		to = (struct fvp *)rt_vp_of(&fifo, t->t.vpp);
	if (!to && !(to = f))
		to = first_vp();
	push(to, t, 0);
	return &to->v;
}

/* Nothing in v's own queue: take from another VP's. */
static __attribute__((noinline)) struct uthread *steal(struct fvp *f)
{
	/* First every thread stranded on a peer that is off its CPU, in its
	   order. Taking one at a time, with more VPs than CPUs the first two
	   taken yielded to each other for the rest of the VP's turn while the
	   others waited on the peer (4 VPs on 1 CPU, 8 yielding threads:
	   144,021 to 683,059 yields in 200 ms). */
	rescue(f);
	struct uthread *t = pop(f, 0);
	for (int i = 0, n = fifo.nvps; !t && i < n; i++) {
		struct fvp *w = fvp_at(i);
		if (w != f && len(w) > 0 && (t = pop(w, 1)))
			fifo_stats.steals++;
	}
	return t;
}

static struct uthread *pick(struct rtvp *v, struct uthread *cur)
{
	(void)cur;
	struct uthread *t = pop((struct fvp *)v, 0);
	return t ? t : fifo.nvps > 1 ? steal((struct fvp *)v) : 0;
}

/*
 * Time slices. Each VP keeps a one-shot timer (rt_timer, token
 * SLICE_TOKEN: the runtime shares the VP's kernel timer with the timed
 * waits' queue) set while it runs threads; when it fires, the running
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
	rt_timer(v, now_ns() + fifo_slice_ns, SLICE_TOKEN);
}

static int event(struct rtvp *v, struct uthread *cur, const struct event *e)
{
	struct fvp *f = (struct fvp *)v;
	if (e->type != EV_TIMER || e->token != SLICE_TOKEN)
		return 0;                /* signals just wake us */
	fifo_stats.slices++;
	f->armed = 0;
	rescue(f);
	if (cur && !len(f)) {        /* out of time, but nobody waits here: */
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
	.local_yield = 1,
	.event = event,
	.on_run = on_run,
	.stack_size = &fifo_stack_size,
	.stats = &fifo_stats.rt,
};

RT_PACKAGE(fifo, 0);             /* no priorities */
