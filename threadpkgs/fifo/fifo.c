/*
 * fifo: a first-class user-level thread package (Psyche-style).
 *
 * Each VP of the package has a FIFO run queue; idle VPs steal. Threads
 * switch voluntarily with a light context switch (lctx). The kernel's
 * upcalls make blocking first-class: on EV_BLOCKED the VP runs another
 * thread; on EV_UNBLOCKED the thread returns, with its full context, to
 * the queue of the VP that got the event; on a preemption warning the VP
 * gives itself up at once (the handler runs only at safe points: never
 * inside the package's own critical sections, which run with software
 * interrupts disabled) and the interrupted thread goes to the tail of
 * the queue — a user-level time slice for free; on EV_PREEMPTED the
 * interrupted thread goes to the head of the queue, so a preempted lock
 * holder is the first thing the VP runs when it comes back.
 *
 * The scheduler loop of a VP runs on its upcall stack with software
 * interrupts disabled, and processes events itself. A voluntary switch
 * leaves the previous thread's bookkeeping (park, requeue, exit) to be
 * finished by whoever runs next on the VP, once the old context is saved.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys.h>
#include <uspin.h>
#include <pkg.h>
#include "fifo.h"

#define UPCALL_STACK (64 * 1024)

enum { NONE, YIELD, YIELD_QUEUED, PARK, EXIT };

struct fthread {
	struct thread t;             /* first: the standard descriptor */
	struct lctx lc;              /* voluntary switches */
	struct uctx kctx;            /* full context (interrupted, or from the kernel) */
	uint8_t fpu[512] __attribute__((aligned(16)));
	int full;                    /* resume from kctx+fpu, not lc */
	struct fthread *next;        /* run queue */
	volatile int oncpu;          /* its stack is in use (exit/free handshake) */
	volatile int switching;      /* queued by a fast yield, still leaving its stack */
	uint64_t stack_size;
	void *(*fn)(void *);
	void *arg;
	char *stack;
};

struct fvp {
	struct vp_page *vpp;
	int index;
	struct uspin lock;           /* the run queue; held only while disabled */
	struct fthread *head, *tail;
	volatile int len;
	volatile int idle;           /* in sys_vp_idle: signal to wake */
	struct fthread *prev;        /* finish_switch's work */
	int prev_action;
	struct lctx sched;           /* entry into the scheduler loop */
};

static struct fvp *fvps[MAXVP];

/* Finished threads, descriptor and stack together, for reuse: creating a
   thread should not cost a fresh mapping of zeroed pages. */
#define CACHE_MAX 1024
static struct uspin cache_lock;
static struct fthread *cache;
static int ncache;
static struct fvp *all[MAXVP];
static volatile int nall;
uint64_t fifo_warn_ns = 1000000;     /* preemption warning asked for (0: none) */
uint64_t fifo_stack_size = 64 * 1024; /* stack of each new thread */
struct fifo_stats fifo_stats;

static const struct thread_ops fifo_ops;
static void sched_loop(void *arg) __attribute__((noreturn));

static inline struct fvp *fvp_self(void)
{
	return fvps[vp_index()];
}

/* Enter/leave a critical section of the package on the calling VP. */
static inline int crit_enter(void)
{
	struct vp_page *p = vp_self();
	int was = p->disabled;
	p->disabled = 1;
	__asm__ volatile("" ::: "memory");
	return was;
}

static inline void crit_leave(int was)
{
	if (!was)
		vp_enable(vp_self());
}

/* Queue operations; the caller is in a critical section. */
static void push(struct fvp *v, struct fthread *t, int at_head)
{
	uspin_lock(&v->lock);
	if (at_head) {
		t->next = v->head;
		v->head = t;
		if (!v->tail)
			v->tail = t;
	} else {
		t->next = 0;
		if (v->tail)
			v->tail->next = t;
		else
			v->head = t;
		v->tail = t;
	}
	v->len++;
	uspin_unlock(&v->lock);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* Wake the target if it idles; else wake some idle VP to steal, or
	   the thread may wait behind a busy one while VPs sit idle. */
	struct fvp *me = fvp_self(), *w = v->idle ? v : 0;
	for (int i = 0; !w && i < nall; i++)
		if (all[i]->idle)
			w = all[i];
	if (w && w != me)
		syscall2(SYS_vp_signal, w->index, 0);
}

static struct fthread *pop(struct fvp *v)
{
	if (!v->len)
		return 0;
	uspin_lock(&v->lock);
	struct fthread *t = v->head;
	if (t) {
		v->head = t->next;
		if (!v->head)
			v->tail = 0;
		v->len--;
	}
	uspin_unlock(&v->lock);
	return t;
}

static struct fthread *pick(struct fvp *v)
{
	struct fthread *t = pop(v);
	for (int i = 0; !t && i < nall; i++)
		if (all[i] != v && all[i]->len > 0 && (t = pop(all[i])))
			fifo_stats.steals++;
	return t;
}

/*
 * Before VP v gives up its processor (honoring a warning), hand the
 * threads queued on it to the peer with the shortest queue, one by one:
 * a peer steals only when its own queue is empty, so threads left on a
 * VP that is about to wait for the CPU would wait with it while two
 * threads on a peer ping-pong (yield counts 10x apart). No thread in our
 * own queue is mid-switch here (the handler runs with none in flight).
 */
static void hand_off(struct fvp *v)
{
	if (nall < 2)
		return;
	for (struct fthread *t; (t = pop(v));) {
		struct fvp *to = 0;
		for (int i = 0; i < nall; i++)
			if (all[i] != v && (!to || all[i]->len < to->len))
				to = all[i];
		push(to, t, 0);
	}
}

/* Finish what the thread switched away from asked for (see top). */
static void finish_switch(struct fvp *v)
{
	struct fthread *p = v->prev;
	if (!p)
		return;
	v->prev = 0;
	switch (v->prev_action) {
	case YIELD:
		push(v, p, 0);
		break;
	case YIELD_QUEUED:               /* fast yield queued it already */
		__atomic_store_n(&p->switching, 0, __ATOMIC_RELEASE);
		break;
	case PARK:
		if (!thread_park_commit(&p->t))
			push(v, p, 0);      /* an unblock beat us to it */
		break;
	case EXIT:
		__atomic_store_n(&p->oncpu, 0, __ATOMIC_RELEASE);
		break;
	}
}

/* Run t on VP v (critical section held; never returns). */
static void run(struct fvp *v, struct fthread *t) __attribute__((noreturn));
static void run(struct fvp *v, struct fthread *t)
{
	while (__atomic_load_n(&t->switching, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause");   /* stolen mid-yield: let it leave its stack */
	t->t.vpp = v->vpp;
	v->vpp->current_thread = (uint64_t)&t->t;
	if (t->full) {
		t->full = 0;
		finish_switch(v);
		vp_switch(v->vpp, &t->kctx, t->fpu);     /* enables in its window */
	}
	lctx_jump(&t->lc);          /* t finishes the switch and enables */
}

/* Switch the calling thread away; `action` says what becomes of it. */
static void switch_from(struct fthread *self, int action)
{
	int was = crit_enter();
	struct fvp *v = fvp_self();
	struct fthread *next = pick(v);
	if (!next && action == YIELD) {
		crit_leave(was);
		return;
	}
	v->prev = self;
	v->prev_action = action;
	if (next && !next->full) {
		while (__atomic_load_n(&next->switching, __ATOMIC_ACQUIRE))
			__asm__ volatile("pause");
		next->t.vpp = v->vpp;
		v->vpp->current_thread = (uint64_t)&next->t;
		lctx_swap(&self->lc, &next->lc);
	} else {
		if (next)
			push(v, next, 1);     /* let the scheduler loop run it */
		v->vpp->current_thread = 0;
		lctx_make(&v->sched, (void *)(v->vpp->upcall_stack - UPCALL_STACK), UPCALL_STACK,
			  sched_loop, v);
		lctx_swap(&self->lc, &v->sched);
	}
	/* Back in self, maybe on another VP. */
	finish_switch(fvp_self());
	vp_enable(vp_self());
}

/* Handle the events in the ring. cur is the interrupted thread (or 0).
   Returns flags: bit 0 cur blocked, bit 1 give up the VP, bit 2 preempted. */
static int drain(struct fvp *v, struct fthread *cur)
{
	struct vp_page *vpp = v->vpp;
	int flags = 0;
	for (;;) {
		vpp->pending = 0;
		for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++) {
			struct fthread *t = (struct fthread *)e->thread;
			switch (e->type) {
			case EV_BLOCKED:
				fifo_stats.blocked++;
				memcpy(t->fpu, vpp->fpu, sizeof t->fpu);
				if (t == cur)
					flags |= 1;
				break;
			case EV_UNBLOCKED:
				fifo_stats.unblocked++;
				t->kctx = e->ctx;
				t->full = 1;
				push(v, t, 0);
				break;
			case EV_WARNING:
				fifo_stats.warnings++;
				flags |= 2;
				break;
			case EV_PREEMPTED:
				fifo_stats.preempted++;
				flags |= 4;
				break;
			default:             /* signals and timers just wake us */
				break;
			}
		}
		if (!vpp->pending)
			return flags;
		syscall0(SYS_vp_poll);   /* more are queued in the kernel */
	}
}

/* The scheduler loop, on the upcall stack, software interrupts disabled. */
static void sched_loop(void *arg)
{
	struct fvp *v = arg;
	finish_switch(v);
	for (;;) {
		drain(v, 0);
		struct fthread *t = pick(v);
		if (t)
			run(v, t);
		v->idle = 1;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		int empty = 1;
		for (int i = 0; i < nall && empty; i++)
			empty = all[i]->len == 0;
		if (empty && vp_next_event(v->vpp) == 0 && !v->vpp->pending) {
			fifo_stats.idles++;
			syscall0(SYS_vp_idle);
		}
		v->idle = 0;
	}
}

/* Upcall handler: a thread was interrupted (or blocked) by events. */
static void handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	(void)pp;
	struct fvp *v = fvps[pp->vp_index];
	struct fthread *cur = (struct fthread *)vpp->current_thread;
	int f = drain(v, cur);
	if (!cur) {                  /* cannot happen: the loop runs disabled */
		sched_loop(v);
	}
	if (f & 1) {                 /* cur blocked in the kernel */
		vpp->current_thread = 0;
		sched_loop(v);
	}
	if ((f & 2) && !(f & 4) && cur->t.crit) {
		cur->t.yield_due = 1;    /* warned inside a spin lock: yield at release */
		fifo_stats.warn_deferred++;
		f &= ~2;
	}
	if (!(f & 6))                /* just news: resume cur */
		vp_resume(vpp);
	/* Preempted or warned: cur was interrupted at a safe point. */
	cur->kctx = vpp->save;
	memcpy(cur->fpu, vpp->fpu, sizeof cur->fpu);
	cur->full = 1;
	push(v, cur, !(f & 2));      /* warned: tail; preempted: head */
	vpp->current_thread = 0;
	if (f & 2) {
		fifo_stats.warn_yields++;
		hand_off(v);
		sys_yield();             /* honor the warning: give up the VP now */
	}
	sched_loop(v);
}

static void trampoline(void *arg)
{
	struct fthread *t = arg;
	finish_switch(fvp_self());
	vp_enable(vp_self());
	thread_exit(t->fn(t->arg));
}

static struct fthread *cache_get(uint64_t size)
{
	struct fthread *t = 0;
	if (cache) {
		uspin_lock(&cache_lock);
		if ((t = cache) && t->stack_size == size) {
			cache = t->next;
			ncache--;
		} else
			t = 0;
		uspin_unlock(&cache_lock);
	}
	if (t)
		return t;
	t = malloc(sizeof *t);
	char *stack = t ? malloc(size) : 0;
	if (!stack) {
		free(t);
		return 0;
	}
	t->stack = stack;
	t->stack_size = size;
	return t;
}

static struct thread *fifo_create(void *(*fn)(void *), void *arg)
{
	uint64_t size = fifo_stack_size;
	struct fthread *t = cache_get(size);
	if (!t)
		return 0;
	char *stack = t->stack;
	thread_init(&t->t, &fifo_ops);
	t->t.pkg = t;
	t->fn = fn;
	t->arg = arg;
	t->full = 0;
	t->next = 0;
	t->switching = 0;
	t->oncpu = 1;
	lctx_make(&t->lc, stack, size, trampoline, t);
	struct fvp *v = fvp_self();
	int was = crit_enter();
	push(v ? v : all[0], t, 0);
	crit_leave(was);
	return &t->t;
}

static void fifo_block(struct thread *self)
{
	switch_from((struct fthread *)self, PARK);
}

static void fifo_unblock(struct thread *t)
{
	struct fthread *f = (struct fthread *)t;
	struct fvp *v = t->vpp ? fvps[((uint64_t)t->vpp - VPPAGE_BASE) / 4096] : 0;
	int was = crit_enter();
	push(v ? v : all[0], f, 0);
	crit_leave(was);
}

/*
 * Yield, fast path: swap places with the head of our own queue under one
 * lock round-trip, queueing ourselves before the switch. The `switching`
 * flag keeps a stealing VP from running us until we are off our stack;
 * anything unusual (empty queue, a full context next) takes switch_from.
 */
__attribute__((optimize("omit-frame-pointer")))
static void fifo_yield(struct thread *self_t)
{
	struct fthread *self = (struct fthread *)self_t;
	struct vp_page *vpp = vp_self();
	vpp->disabled = 1;
	__asm__ volatile("" ::: "memory");
	struct fvp *v = fvps[vp_index()];
	uspin_lock(&v->lock);
	struct fthread *next = v->head;
	if (next && !next->full) {
		/* A thread in our own queue is never mid-switch: a fast yield
		   queues on its own VP, and this VP finished that switch. Only
		   stealers (run()) must wait on `switching`. */
		v->head = next->next;
		self->next = 0;
		self->switching = 1;
		if (v->head)
			v->tail->next = self;
		else
			v->head = self;
		v->tail = self;
		uspin_unlock(&v->lock);
		v->prev = self;
		v->prev_action = YIELD_QUEUED;
		next->t.vpp = vpp;
		vpp->current_thread = (uint64_t)&next->t;
		lctx_swap(&self->lc, &next->lc);
		/* Back, maybe on another VP: finish whoever switched to us. */
		struct fvp *w = fvps[vp_index()];
		struct fthread *p = w->prev;
		if (p && w->prev_action == YIELD_QUEUED) {
			w->prev = 0;
			__atomic_store_n(&p->switching, 0, __ATOMIC_RELEASE);
		} else
			finish_switch(w);
		vpp = vp_self();
		vpp->disabled = 0;
		__asm__ volatile("" ::: "memory");
		if (vpp->pending)
			syscall0(SYS_vp_poll);
		return;
	}
	uspin_unlock(&v->lock);
	vpp->disabled = 0;
	__asm__ volatile("" ::: "memory");
	if (vpp->pending)
		syscall0(SYS_vp_poll);
	switch_from(self, YIELD);
}

__attribute__((noreturn)) static void fifo_exit(struct thread *self)
{
	switch_from((struct fthread *)self, EXIT);
	abort();
}

static void fifo_free(struct thread *t)
{
	struct fthread *f = (struct fthread *)t;
	while (__atomic_load_n(&f->oncpu, __ATOMIC_ACQUIRE))
		thread_yield();          /* it is still leaving its stack */
	if (ncache < CACHE_MAX) {
		uspin_lock(&cache_lock);
		f->next = cache;
		cache = f;
		ncache++;
		uspin_unlock(&cache_lock);
		return;
	}
	free(f->stack);
	free(f);
}

static const struct thread_ops fifo_ops = {
	.name = "fifo",
	.block = fifo_block,
	.unblock = fifo_unblock,
	.yield = fifo_yield,
	.exit = fifo_exit,
	.free = fifo_free,
};

/* Make the calling VP a fifo VP (upcalls registered, still disabled). */
static struct fvp *adopt_vp(void)
{
	struct fvp *v = calloc(1, sizeof *v);
	int idx = vp_index();
	v->index = idx;
	v->vpp = upcall_register(idx, handler, UPCALL_STACK);
	if (!v->vpp) {
		printf("fifo: cannot register upcalls on VP %d\n", idx);
		exit(70);
	}
	v->vpp->warn_ns = fifo_warn_ns;
	v->vpp->want_preempted = 1;
	fvps[idx] = v;
	all[__atomic_fetch_add(&nall, 1, __ATOMIC_ACQ_REL)] = v;
	return v;
}

static void vp_boot(void *arg)
{
	(void)arg;
	struct fvp *v = adopt_vp();
	lctx_make(&v->sched, (void *)(v->vpp->upcall_stack - UPCALL_STACK), UPCALL_STACK, sched_loop, v);
	lctx_jump(&v->sched);
}

static void vp_boot_entry(void *arg) __attribute__((noreturn));
static void vp_boot_entry(void *arg)
{
	vp_boot(arg);
	__builtin_unreachable();
}

static int fifo_add_vps(int n)
{
	for (int i = 0; i < n; i++) {
		char *stack = malloc(16384);
		if (!stack)
			return i;
		long r = syscall3(SYS_vp_create, (uint64_t)vp_boot_entry, ((uint64_t)stack + 16384) & ~15UL, 0);
		if (r < 0)
			return i;
	}
	return n;
}

struct mainarg {
	void *(*fn)(void *);
	void *arg;
};

static void *main_thread(void *a)
{
	struct mainarg *m = a;
	exit((int)(intptr_t)m->fn(m->arg));
}

__attribute__((noreturn)) static void fifo_run(int nvp, void *(*fn)(void *), void *arg)
{
	struct fvp *v = adopt_vp();
	static struct mainarg m;
	m.fn = fn;
	m.arg = arg;
	fifo_create(main_thread, &m);
	if (nvp > 1)
		fifo_add_vps(nvp - 1);
	lctx_make(&v->sched, (void *)(v->vpp->upcall_stack - UPCALL_STACK), UPCALL_STACK, sched_loop, v);
	lctx_jump(&v->sched);
}

const struct pkg fifo_pkg = {
	.name = "fifo",
	.run = fifo_run,
	.create = fifo_create,
	.add_vps = fifo_add_vps,
};
