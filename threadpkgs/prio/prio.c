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
 *
 * Real-time throttling, as Linux's sched_rt_runtime_us/sched_rt_period_us
 * defaults: in each 1 s period (of the boot clock) a VP runs real-time
 * threads (levels 1..99) for at most 950 ms while a level-0 thread is
 * runnable; then it runs level 0 first until the period ends. Without
 * it a real-time thread that computes keeps SCHED_OTHER threads off the
 * VP for ever (a main blocked in pthread_join never runs the handler
 * that would wake a higher waiter: the Open POSIX functional condvar and
 * schedule tests). Per VP, as Linux's is per CPU: a VP is this package's
 * CPU, and the count then needs no shared line. The time is counted at a
 * timer (rt_timer) armed only while the VP runs a real-time thread:
 * each fire charges the time since the last to a real-time cur (a
 * sample), and fires again at most TICK later or when the budget would
 * run out. A thread of level 0 never arms it: SCHED_OTHER-only programs
 * pay nothing.
 *
 * Time slices (the runtime's, rtpkg.slice_ns): a level-0 thread that
 * computes while another waits yields to it every SLICE_NS, as Linux
 * time-slices SCHED_OTHER; so does a SCHED_RR thread (t.rr, set by
 * ulib/pthread) to the others of its level, as POSIX says. SCHED_FIFO
 * threads are never sliced. A real-time RR thread picked while its level
 * still has waiters starts a slice (pick_rt): the one its waiters' enqueue
 * set may have ended under a thread that is not sliced.
 */
#include <string.h>
#include <animart/vprt.h>
#include <animart/clock.h>

#define WARN_NS 500000               /* preemption warning asked for: 0.5 ms */
#define SLICE_NS PKG_SLICE_NS        /* level 0's and SCHED_RR's slice while others wait */

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

#define PERIOD_NS 1000000000ull      /* sched_rt_period_us */
#define BUDGET_NS 950000000ull       /* sched_rt_runtime_us */
#define TICK_NS   10000000ull        /* how often a throttled-to-be VP looks */
#define THR_TOKEN 0x7072696f74687274UL

struct pvp {
	struct rtvp v;               /* first: the runtime's */
	uint64_t pend;               /* the current period's end (boot clock) */
	uint64_t used;               /* real-time ns counted in it */
	uint64_t last;               /* the count's last sample */
	int armed;                   /* the throttle timer is set */
	volatile int thr;            /* throttled: level 0 first until pend */
};
#define PV(v) ((struct pvp *)(v))
static int nthr;                     /* throttled VPs */

static void set_thr(struct pvp *p, int on)
{
	if (p->thr != on) {
		p->thr = on;
		__atomic_fetch_add(&nthr, on ? 1 : -1, __ATOMIC_RELAXED);
	}
}

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

/* self to the tail of level l, setting l's mask bit if it was empty.
   Lock held. */
static inline void put_tail(struct uthread *self, int l)
{
	self->next = 0;
	if (tail[l])
		tail[l]->next = self;
	else {
		head[l] = self;
		mask_set(l);
	}
	tail[l] = self;
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

/* A level-0 thread became runnable: kick the throttled VPs that run a
   real-time thread (no level-0 thread waited when it was picked). */
static __attribute__((noinline)) void kick_throttled(void)
{
	for (int i = 0, n = prio.nvps; i < n; i++) {
		struct rtvp *w = prio.vps[i];
		if (PV(w)->thr && running_level(w) > 0)
			rt_kick(w);
	}
}

/* t became runnable at level L: preempt the VP running the lowest level
   below L, if there is one (an idle VP the runtime wakes by itself). */
static void preempt_lowest(int level)
{
	if (!level) {                /* nothing runs below level 0, */
		if (__builtin_expect(nthr, 0))
			kick_throttled();    /* but a throttled VP runs it first */
		return;
	}
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

/* Throttled with a level-0 thread waiting: v runs level 0 first. */
static inline int throttled(struct rtvp *v)
{
	return __builtin_expect(PV(v)->thr, 0) && (mask[0] & 1);
}

/* (Re)arm v's throttle timer (v the caller, software interrupts off):
   at the period's end if throttled, else when the budget runs out, at
   most TICK_NS from now. A new period starts the count afresh. */
static void thr_arm(struct pvp *p, uint64_t now)
{
	if (now >= p->pend) {
		p->pend = (now / PERIOD_NS + 1) * PERIOD_NS;
		p->used = 0;
		set_thr(p, 0);
	}
	uint64_t left = p->used < BUDGET_NS ? BUDGET_NS - p->used : 0;
	uint64_t at = now + (left && left < TICK_NS ? left : TICK_NS);
	if (p->thr || at > p->pend)
		at = p->pend;
	p->armed = 1;
	rt_timer(&p->v, at, THR_TOKEN);
}

/* v is about to run real-time thread t: count from now. */
static void thr_start(struct rtvp *v)
{
	uint64_t now = now_ns();
	PV(v)->last = now;
	thr_arm(PV(v), now);
}

static struct rtvp *enqueue(struct rtvp *v, struct uthread *t, int why)
{
	rt_slice_note(v);            /* t waits: a slice for the thread on v */
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

/* pick with a real-time level waiting: level 0 first on a throttled
   VP; a real-time thread picked starts the throttle's count. */
static __attribute__((noinline)) struct uthread *pick_rt(struct rtvp *v, struct uthread *cur)
{
	int l, thr = PV(v)->thr;
	spin_lock_by(&lock, 0);
	struct uthread *t = 0;
	if (thr && (mask[0] & 1))
		t = take(0);
	/* (throttled, a yielding level-0 cur runs on rather than real time) */
	if (!t && !(thr && cur && !cur->t.prio) &&
	    (l = top()) >= 0 && !(cur && l < cur->t.prio))
		t = take(l);
	int more = t && t->t.rr && head[t->t.prio];
	spin_unlock_by(&lock, 0);
	if (more)
		rt_slice_note(v);        /* SCHED_RR with its level's others waiting */
	if (t && t->t.prio > 0 && !PV(v)->armed)
		thr_start(v);
	return t;
}

/* The head of the highest level; for a yielding cur, only from its own
   level or above (0: cur runs on). Level 0 alone (SCHED_OTHER only) is
   the fast path: no throttle to look at. */
static struct uthread *pick(struct rtvp *v, struct uthread *cur)
{
	int l = top();
	if (__builtin_expect(l != 0, 0))
		return l < 0 ? 0 : pick_rt(v, cur);
	if (cur && cur->t.prio > 0)
		return pick_rt(v, cur);  /* (a throttled real-time cur yields to level 0) */
	spin_lock_by(&lock, 0);
	struct uthread *t = 0;
	if ((l = top()) >= 0 && !(cur && l < cur->t.prio))
		t = take(l);
	spin_unlock_by(&lock, 0);
	return t;
}

/* A yield with another level on top: as a pick (the slow path of
   yield_swap, which must queue self itself: self to the tail of its
   level, then the pick; 0 if nothing else comes out: self runs on). */
static __attribute__((noinline)) struct uthread *yield_other(struct uthread *self)
{
	struct rtvp *v = vp_pkg(self->t.vpp);    /* (the caller's: not kept across the lock) */
	int l = self->t.prio;
	struct uthread *t = pick(v, self);
	if (!t)
		return 0;
	spin_lock_by(&lock, 0);
	put_tail(self, l);
	spin_unlock_by(&lock, 0);
	return t;
}

/* Yield: self to the tail of its level and the head of that level out,
   under one lock round trip; another level on top (or none) takes the
   slow path, yield_other. (No frame pointer: a yield is counted in
   instructions, make bench.) */
__attribute__((optimize("omit-frame-pointer")))
static struct uthread *yield_swap(struct rtvp *v, struct uthread *self)
{
	(void)v;
	int l = self->t.prio;
	spin_lock_by(&lock, 0);
	if (__builtin_expect(top() != l, 0)) {
		spin_unlock_by(&lock, 0);
		return yield_other(self);
	}
	struct uthread *t = head[l];
	if (t && !rt_busy(t)) {
		/* a turn within the level: self queued behind t, then t out
		   (the level never empties: its mask bit stays; and t queued
		   means a tail, which told, the compiler drops put_tail's
		   test: make bench's yield counts instructions) */
		if (!tail[l])
			__builtin_unreachable();
		put_tail(self, l);
		head[l] = t->next;
	} else if ((t = take(l)))
		put_tail(self, l);
	spin_unlock_by(&lock, 0);
	return t;
}

/* t's level changes (priority inheritance, ulib/pthread/mutex.c): if it
   waits in a queue, it moves to the tail of its new level, and a VP
   running something lower is kicked as for a new arrival. A running or
   blocked t is only marked: enqueue and preempt read t.prio. */
static void reprio(struct uthread *t, int lv)
{
	int old = t->t.prio, queued = 0;
	spin_lock_by(&lock, 0);
	struct uthread *prev = 0, *x = head[old];
	while (x && x != t) {
		prev = x;
		x = x->next;
	}
	if (x && old != lv) {
		queued = 1;
		if (prev)
			prev->next = t->next;
		else
			head[old] = t->next;
		if (tail[old] == t)
			tail[old] = prev;
		if (!head[old])
			mask_clear(old);
		put_tail(t, lv);
	}
	t->t.prio = lv;
	spin_unlock_by(&lock, 0);
	if (queued)
		preempt_lowest(lv);
	else if (lv > 0)           /* running, raised: its VP counts it from its upcall */
		for (int i = 0, n = prio.nvps; i < n; i++)
			if (rt_running(prio.vps[i]) == t && !PV(prio.vps[i])->armed)
				rt_kick(prio.vps[i]);
}

/* After an upcall: switch cur out if a higher level waits, or, on a
   throttled VP, if cur is real-time and a level-0 thread waits. */
static int preempt(struct rtvp *v, struct uthread *cur)
{
	if (cur->t.prio > 0 && !PV(v)->armed)
		thr_start(v);            /* (raised while it ran: reprio's kick) */
	if (throttled(v))
		return cur->t.prio > 0;
	return top() > cur->t.prio;
}

/* The throttle timer: charge the time since the last sample to a
   real-time cur; past the budget with a level-0 thread waiting, throttle
   (switch a real-time cur out) until the period's end, which lifts it
   (a real-time thread waiting then preempts a level-0 cur). */
static int timer(struct rtvp *v, struct uthread *cur, uint64_t token)
{
	struct pvp *p = PV(v);
	if (token != THR_TOKEN)
		return 0;
	uint64_t now = now_ns();
	int rt = cur && cur->t.prio > 0;
	p->armed = 0;
	if (rt && now < p->pend)
		p->used += now - p->last;
	p->last = now;
	if (now >= p->pend)
		set_thr(p, 0);       /* (thr_arm starts the new period) */
	else if (!p->thr && p->used >= BUDGET_NS && (mask[0] & 1))
		set_thr(p, 1);
	if (rt || p->thr)
		thr_arm(p, now);
	if (!cur)
		return 0;
	return preempt(v, cur);
}

/* Waiters on a mutex, condition variable or semaphore (<animart/waitq.h>):
   the highest priority is woken first; FIFO among equals. */
static int wait_first(const struct thread *a, const struct thread *b)
{
	return a->prio > b->prio;
}

/* Level 0 (SCHED_OTHER) and SCHED_RR are sliced; SCHED_FIFO is not. */
static int sliced(struct uthread *cur)
{
	return cur->t.prio == 0 || cur->t.rr;
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
	for (int i = 0; i < prio.nvps; i++)   /* the kernel timers are not the child's */
		PV(prio.vps[i])->armed = PV(prio.vps[i])->thr = 0;
	nthr = 0;
}

static struct rtpkg prio = {
	.ops = RT_OPS(PKG_NAME, .wait_first = wait_first),
	.vp_size = sizeof(struct pvp),
	.fork_reset = fork_reset,
	.init_vp = init_vp,
	.enqueue = enqueue,
	.pick = pick,
	.yield_swap = yield_swap,
	.preempt = preempt,
	.timer = timer,
	.reprio = reprio,
	.slice_ns = SLICE_NS,
	.sliced = sliced,
};

RT_PACKAGE(prio, PKG_ATTR_PRIO);
