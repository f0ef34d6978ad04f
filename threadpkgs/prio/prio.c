/*
 * prio: fixed priorities on the VP runtime (<animart/vprt.h>).
 *
 * THREAD_NPRIO levels (thread_attr.prio, <animart/thread.h>: 0 for
 * SCHED_OTHER, 1..99 for the real-time priorities); the highest
 * runnable level runs first, round robin within a level, and the queues
 * are shared by all the package's VPs. A yield gives the VP to the next
 * thread of the same level or a higher one, never to a lower one.
 *
 * User-level preemption: a thread that becomes runnable at a level above
 * the lowest-priority thread running on the package's VPs makes that VP
 * take an upcall (rt_kick: SYS_vp_signal), whose handler asks preempt()
 * and switches the running thread out (unless it holds a spin lock: then
 * spin_unlock yields). A thread preempted that way, or by the kernel,
 * goes back to the head of its level: its turn was cut short. One handed
 * off at a preemption warning goes to the tail, behind its level's
 * waiters: its VP's quantum is over, and at the head it would be the next
 * VP's pick again and again, so that a thread that only computes kept
 * its level's others off every VP (at -smp 1 with 2 VPs, a woken main
 * waited seconds beside a computing thread).
 *
 * Priority ceilings on <animart/sync.h>'s mutexes (umutex_set_ceiling) raise a
 * holder's t.prio, which is what enqueue, pick and preempt read.
 */
#include <string.h>
#include <animart/vprt.h>

#define WARN_NS 500000               /* preemption warning asked for: 0.5 ms */

static struct spin lock;             /* all the queues */
static struct uthread *head[THREAD_NPRIO], *tail[THREAD_NPRIO];
/* Which levels are not empty, in two words: bit L of word 0 for levels
   0..62 (SCHED_OTHER's 0 and the real-time priorities most programs
   use), bit L-63 of word 1 for levels 63..99, and word 0's top bit set
   while word 1 is not 0. So the usual top() is one load, as with one
   word: a sign test says whether word 1 need be read at all. */
#define HI 63
static volatile uint64_t mask[2];
_Static_assert(THREAD_NPRIO <= 2 * HI, "prio's mask holds 126 levels");

static struct rtpkg prio;

static inline void mask_set(int l)
{
	if (l < HI)
		mask[0] |= 1ull << l;
	else {
		mask[1] |= 1ull << (l - HI);
		mask[0] |= 1ull << HI;
	}
}

static inline void mask_clear(int l)
{
	if (l < HI)
		mask[0] &= ~(1ull << l);
	else if (!(mask[1] &= ~(1ull << (l - HI))))
		mask[0] &= ~(1ull << HI);
}

/* The highest nonempty level, or -1. (Read unlocked, word 0's top bit
   may come without word 1's: then the levels below.) */
static inline int top(void)
{
	uint64_t m = __atomic_load_n(&mask[0], __ATOMIC_RELAXED);
	if ((int64_t)m > 0)
		return 63 - __builtin_clzll(m);
	if (!m)
		return -1;
	uint64_t h = __atomic_load_n(&mask[1], __ATOMIC_RELAXED);
	if (h)
		return HI + 63 - __builtin_clzll(h);
	m &= ~(1ull << HI);
	return m ? 63 - __builtin_clzll(m) : -1;
}

/* A running thread's level; an idle VP is below every level. */
static int running_level(struct rtvp *w)
{
	struct uthread *c = rt_running(w);
	return c ? c->t.prio : -1;
}

/* t became runnable at level L: preempt the VP running the lowest level
   below L, if there is one (an idle VP the runtime wakes by itself). */
static void preempt_lowest(int level)
{
	struct rtvp *low = 0;
	int lowest = level;
	for (int i = 0, n = prio.nvps; i < n; i++) {
		struct rtvp *w = prio.vps[i];
		int l = running_level(w);
		if (l < 0)
			return;              /* idle: it will run t */
		if (l < lowest) {
			lowest = l;
			low = w;
		}
	}
	if (low)
		rt_kick(low);
}

static struct rtvp *enqueue(struct rtvp *v, struct uthread *t, int why)
{
	(void)v;
	int l = t->t.prio;
	/* Interrupted before its turn was over: first of its level again. */
	int first = why == RQ_RESCHED || why == RQ_PREEMPTED;
	spin_lock_by(&lock, 0);
	if (!head[l]) {
		t->next = 0;
		head[l] = tail[l] = t;
	} else if (first) {
		t->next = head[l];
		head[l] = t;
	} else {
		t->next = 0;
		tail[l]->next = t;
		tail[l] = t;
	}
	mask_set(l);
	spin_unlock_by(&lock, 0);
	if (why == RQ_NEW || why == RQ_UNBLOCK)
		preempt_lowest(l);       /* (a yielded or interrupted one was running) */
	return 0;
}

/* Take the first thread of level l that is not busy (a yield on another
   VP still leaving its stack: waiting for it could mean waiting for a
   vCPU the host has descheduled); 0 if there is none. Lock held. */
static __attribute__((noinline)) struct uthread *take_behind(int l)
{
	struct uthread *prev = 0, *t = head[l];
	while (t && rt_busy(t)) {
		prev = t;
		t = t->next;
	}
	if (!t)
		return 0;
	if (prev)
		prev->next = t->next;
	else
		head[l] = t->next;
	if (tail[l] == t)
		tail[l] = prev;
	if (!head[l])
		mask_clear(l);
	return t;
}

/* The same, the head (almost always) inline. */
static inline struct uthread *take(int l)
{
	struct uthread *t = head[l];
	if (!t || rt_busy(t))
		return take_behind(l);
	if (!(head[l] = t->next)) {
		tail[l] = 0;
		mask_clear(l);
	}
	return t;
}

/* The head of the highest level; for a yielding cur, only from its own
   level or above (0: cur runs on). */
static struct uthread *pick(struct rtvp *v, struct uthread *cur)
{
	(void)v;
	int l = top();
	if (l < 0 || (cur && l < cur->t.prio))
		return 0;
	spin_lock_by(&lock, 0);
	struct uthread *t = 0;
	if ((l = top()) >= 0 && !(cur && l < cur->t.prio))
		t = take(l);
	spin_unlock_by(&lock, 0);
	return t;
}

/* Yield: self to the tail of its level and the head of the highest level
   out, under one lock round trip; 0 if only lower levels wait. (No frame
   pointer: a yield is counted in instructions, make bench.) */
__attribute__((optimize("omit-frame-pointer")))
static struct uthread *yield_swap(struct rtvp *v, struct uthread *self)
{
	(void)v;
	int l = self->t.prio, h;
	spin_lock_by(&lock, 0);
	struct uthread *t = 0;
	if ((h = top()) >= l) {
		t = head[h];
		self->next = 0;
		if (h == l && t && !rt_busy(t)) {
			/* a turn within the level: its mask bit stays */
			if (t->next) {
				head[l] = t->next;
				tail[l]->next = self;
			} else
				head[l] = self;
			tail[l] = self;
		} else if ((t = take(h))) {
			if (tail[l])
				tail[l]->next = self;
			else {
				head[l] = self;
				mask_set(l);
			}
			tail[l] = self;
		}
	}
	spin_unlock_by(&lock, 0);
	return t;
}

/* t's level changes (priority inheritance, ulib/pthread/mutex.c): if it
   waits in a queue, it moves to the tail of its new level, and a VP
   running something lower is kicked as for a new arrival. A running or
   blocked t is only marked: enqueue and preempt read t.prio. */
static void reprio(struct uthread *t, int prio)
{
	int old = t->t.prio, queued = 0;
	spin_lock_by(&lock, 0);
	struct uthread *prev = 0, *x = head[old];
	while (x && x != t) {
		prev = x;
		x = x->next;
	}
	if (x && old != prio) {
		queued = 1;
		if (prev)
			prev->next = t->next;
		else
			head[old] = t->next;
		if (tail[old] == t)
			tail[old] = prev;
		if (!head[old])
			mask_clear(old);
		t->next = 0;
		if (tail[prio])
			tail[prio]->next = t;
		else
			head[prio] = t;
		tail[prio] = t;
		mask_set(prio);
	}
	t->t.prio = prio;
	spin_unlock_by(&lock, 0);
	if (queued)
		preempt_lowest(prio);
}

/* After an upcall: switch cur out if a higher level waits. */
static int preempt(struct rtvp *v, struct uthread *cur)
{
	(void)v;
	return top() > cur->t.prio;
}

/* Waiters on a mutex, condition variable or semaphore (<animart/waitq.h>):
   the highest priority is woken first; FIFO among equals. */
static int wait_first(const struct thread *a, const struct thread *b)
{
	return a->prio > b->prio;
}

static void init_vp(struct rtvp *v)
{
	v->vpp->warn_ns = WARN_NS;
}

/* A fork's child: the queued threads are not in it. */
static void fork_reset(void)
{
	lock.locked = 0;
	memset(head, 0, sizeof head);
	memset(tail, 0, sizeof tail);
	mask[0] = mask[1] = 0;
}

static struct rtpkg prio = {
	.ops = RT_OPS(PKG_NAME, .wait_first = wait_first),
	.fork_reset = fork_reset,
	.init_vp = init_vp,
	.enqueue = enqueue,
	.pick = pick,
	.yield_swap = yield_swap,
	.preempt = preempt,
	.reprio = reprio,
};

RT_PACKAGE(prio, PKG_ATTR_PRIO);
