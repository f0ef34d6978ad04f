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
 * interrupts disabled) and the interrupted thread goes to the tail of a
 * queue; on EV_PREEMPTED the interrupted thread goes to the head of the
 * queue, so a preempted lock holder is the first thing the VP runs when
 * it comes back. A per-VP timer gives threads time slices (1 ms): at the
 * end of one the running thread moves to the shortest queue and the VP
 * evens out queue lengths with its peers, so threads share all VPs.
 *
 * The scheduler loop of a VP runs on its upcall stack with software
 * interrupts disabled, and processes events itself.
 *
 * Every queued thread resumes the same way, lctx_jump to its lc: a thread
 * with a full context (interrupted, or back from the kernel) gets an lc
 * that starts resume_full on its own stack, below the interrupted frame.
 * A thread switching away makes itself visible (queued, parked) before it
 * has left its stack, with lc.busy set; lctx_swap clears busy once on the
 * new stack, and a VP about to run a thread it took from another VP's
 * queue waits for that, or leaves it there. A busy thread is only ever
 * in the queue of the VP running its switch (the switch queues it there,
 * or an unblock does: to the queue of the VP the thread runs on), and
 * every move between queues takes threads that are not busy (pop's
 * `other`). So a VP popping its own queue finds no busy thread — its own
 * switches were done first — and the yield fast path need not look.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys.h>
#include <uspin.h>
#include <clock.h>
#include <pkg.h>
#include "fifo.h"

#define UPCALL_STACK (64 * 1024)

enum { YIELD, PARK, EXIT };

struct fthread {
	struct thread t;             /* first: the standard descriptor */
	struct lctx lc;              /* where it resumes (lc.busy: see top) */
	struct uctx kctx;            /* full context (interrupted, or from the kernel) */
	uint8_t fpu[512] __attribute__((aligned(16)));
	struct fthread *next;        /* run queue */
	volatile int oncpu;          /* its stack is in use (exit/free handshake) */
	uint64_t stack_size;
	void *(*fn)(void *);
	void *arg;
	char *stack;
};

struct fvp {
	struct uspin lock;           /* the run queue; held only while disabled */
	int index;
	struct vp_page *vpp;
	struct fthread *tail;        /* circular: tail->next is the head */
	volatile int len;
	volatile int idle;           /* in sys_vp_idle: signal to wake */
	int armed;                   /* the time-slice timer is set */
	unsigned seed;               /* shortest()'s ties */
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
uint64_t fifo_slice_ns = 1000000;     /* time slice of a thread (0: none) */
struct fifo_stats fifo_stats;

static const struct thread_ops fifo_ops;
static void sched_loop(void *arg) __attribute__((noreturn));

static inline struct fvp *fvp_self(void)
{
	return vp_pkg(vp_self());
}

/* Enter/leave a critical section of the package on the calling VP. */
static inline int crit_enter(void)
{
	return vp_disable_save(vp_self());
}

static inline void crit_leave(int was)
{
	vp_restore(vp_self(), was);     /* maybe another VP than at enter */
}

/* Queue operations; the caller is in a critical section. A queue is a
   circular list through `next`, v->tail->next being its head: a push, a
   pop and the fast yield's rotation each start from the one pointer. */
static void push(struct fvp *v, struct fthread *t, int at_head)
{
	uspin_lock(&v->lock);
	struct fthread *tail = v->tail;
	if (!tail)
		v->tail = t->next = t;
	else {
		t->next = tail->next;
		tail->next = t;
		if (!at_head)
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

/* Take the head of v's queue. A VP taking from another's (`other`)
   leaves a head that is still leaving its stack there: waiting for it
   could mean waiting for a vCPU the host has descheduled. */
static struct fthread *pop(struct fvp *v, int other)
{
	if (!v->len)
		return 0;
	uspin_lock(&v->lock);
	struct fthread *tail = v->tail, *t = tail ? tail->next : 0;
	if (t && other && t->lc.busy)
		t = 0;
	if (t) {
		if (t == tail)
			v->tail = 0;
		else
			tail->next = t->next;
		v->len--;
	}
	uspin_unlock(&v->lock);
	return t;
}

static struct fthread *pick(struct fvp *v)
{
	struct fthread *t = pop(v, 0);
	for (int i = 0; !t && i < nall; i++)
		if (all[i] != v && all[i]->len > 0 && (t = pop(all[i], 1)))
			fifo_stats.steals++;
	return t;
}

/*
 * Even out run queues, at the end of a time slice, a warning or a
 * preemption of v: move threads from v's queue to the shortest peer's
 * until v's is no longer the longer, then take threads from the longest
 * peer's while it is longer than v's by two or more. A VP steals only when
 * its own queue is empty, so without this a VP with one thread and one
 * with seven stay that way, and their threads get shares 7x apart.
 */
static void balance(struct fvp *v)
{
	if (nall < 2)
		return;
	struct fthread *t;
	for (;;) {
		struct fvp *lo = 0, *hi = 0;
		for (int i = 0; i < nall; i++) {
			struct fvp *w = all[i];
			if (w == v)
				continue;
			if (!lo || w->len < lo->len)
				lo = w;
			if (!hi || w->len > hi->len)
				hi = w;
		}
		if (v->len > lo->len && (t = pop(v, 0)))
			push(lo, t, 0);
		else if (hi->len > v->len + 1 && (t = pop(hi, 1)))
			push(v, t, 0);      /* not busy: fine in our own queue (see top) */
		else
			return;
		fifo_stats.moved++;
	}
}

/*
 * The running VP with the shortest queue, v's own included, ties broken
 * at random. A thread whose time slice ends goes there: even queues alone
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

static struct fvp *shortest(struct fvp *v)
{
	struct fvp *best = v;
	int ties = 1;
	for (int i = 0; i < nall; i++) {
		struct fvp *w = all[i];
		if (w == v || w->len > best->len)
			continue;
		if (w->len < best->len) {
			best = w;
			ties = 1;
		} else if (xorshift(&v->seed) % ++ties == 0)
			best = w;
	}
	return best;
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

static void slice_arm(struct fvp *v)
{
	if (!fifo_slice_ns)
		return;
	v->armed = 1;
	syscall2(SYS_timer, now_ns() + fifo_slice_ns, SLICE_TOKEN);
}

/* Thread t was interrupted, or blocked in the kernel: its state is in
   kctx and fpu. Make its lc resume that, from a frame on its own stack
   below the interrupted one (and its 128-byte red zone). */
static void resume_full(void *arg) __attribute__((noreturn));
static void resume_full(void *arg)
{
	struct fthread *t = arg;
	vp_switch(vp_self(), &t->kctx, t->fpu);     /* enables in its window */
}

static void make_full(struct fthread *t)
{
	uint64_t top = t->kctx.rsp - 128, lo = (uint64_t)t->stack + 512;
	if (top < lo || top > (uint64_t)t->stack + t->stack_size) {
		printf("fifo: thread %lu: stack pointer %#lx is outside its stack [%p, +%lu)\n",
		       t->t.id, t->kctx.rsp, t->stack, t->stack_size);
		exit(71);
	}
	lctx_make(&t->lc, t->stack, top - (uint64_t)t->stack, resume_full, t);
}

/* Run t on VP v (critical section held; never returns). */
static void run(struct fvp *v, struct fthread *t) __attribute__((noreturn));
static void run(struct fvp *v, struct fthread *t)
{
	while (__atomic_load_n(&t->lc.busy, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause");   /* stolen mid-switch: let it leave its stack */
	if (!v->armed)
		slice_arm(v);
	t->t.vpp = v->vpp;
	v->vpp->current_thread = (uint64_t)&t->t;
	lctx_jump(&t->lc);          /* t enables once it is back */
}

/* Enter the scheduler loop of v afresh, on its upcall stack. */
static void to_sched(struct fvp *v, struct fthread *self, int exiting)
{
	v->vpp->current_thread = 0;
	lctx_make(&v->sched, (void *)(v->vpp->upcall_stack - UPCALL_STACK), UPCALL_STACK,
		  sched_loop, v);
	if (exiting)
		lctx_exit(&v->sched, &self->oncpu);
	lctx_swap(&self->lc, &v->sched);
}

/* Switch the calling thread away; `action` says what becomes of it. */
static void switch_from(struct fthread *self, int action)
{
	int was = crit_enter();
	struct fvp *v = fvp_self();
	struct fthread *next;
	self->lc.busy = 1;
	if (action == YIELD) {
		if (!(next = pick(v)))
			goto stay;          /* nobody else to run */
		push(v, self, 0);
	} else {
		if (action == PARK && !thread_park_commit(&self->t))
			goto stay;          /* an unblock came first */
		/* Parked: an unblock may queue us (with busy set) from now on,
		   even here, so pick may return self. */
		if ((next = pick(v)) == self)
			goto stay;
	}
	if (!next)
		to_sched(v, self, action == EXIT);
	else {
		while (__atomic_load_n(&next->lc.busy, __ATOMIC_ACQUIRE))
			__asm__ volatile("pause");
		next->t.vpp = v->vpp;
		v->vpp->current_thread = (uint64_t)&next->t;
		if (action == EXIT)
			lctx_exit(&next->lc, &self->oncpu);
		lctx_swap(&self->lc, &next->lc);
	}
	/* Back in self, maybe on another VP. */
	vp_enable(vp_self());
	return;
stay:
	self->lc.busy = 0;
	crit_leave(was);
}

/* Handle the events in the ring. cur is the interrupted thread (or 0).
   Returns flags: bit 0 cur blocked, bit 1 give up the VP, bit 2
   preempted, bit 3 time slice over. */
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
				make_full(t);
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
			case EV_TIMER:
				if (e->token == SLICE_TOKEN) {
					fifo_stats.slices++;
					v->armed = 0;
					flags |= 8;
				}
				break;
			default:             /* signals just wake us */
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
	if (!v->armed)
		slice_arm(v);
	if (f & 4)                   /* preempted: a warning or slice end is moot now */
		f &= ~(2 | 8);
	else if ((f & 10) && cur->t.crit) {
		/* Inside a spin lock: leave cur where it is. A warning is
		   honored at the lock's release (spin_unlock yields the VP);
		   a time slice just waits for the next one. */
		if (f & 2) {
			cur->t.yield_due = 1;
			fifo_stats.warn_deferred++;
		}
		f &= ~(2 | 8);
	}
	if (f == 8 && !v->len) {     /* out of time, but nobody waits here */
		balance(v);              /* (a peer may have two more than we) */
		vp_resume(vpp);          /* moving cur would only idle this VP */
	}
	if (!(f & 14))               /* just news: resume cur */
		vp_resume(vpp);
	/* Preempted, warned or out of time: interrupted at a safe point. */
	cur->kctx = vpp->save;
	memcpy(cur->fpu, vpp->fpu, sizeof cur->fpu);
	make_full(cur);
	vpp->current_thread = 0;
	if (f & 4)                   /* preempted: first when we are back */
		push(v, cur, 1);
	else                         /* its time slice is over */
		push(shortest(v), cur, 0);
	balance(v);
	if (f & 2) {
		fifo_stats.warn_yields++;
		sys_yield();             /* honor the warning: give up the VP now */
	}
	sched_loop(v);
}

static void trampoline(void *arg)
{
	struct fthread *t = arg;
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
	t->next = 0;
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
 * lock round trip, queueing ourselves (busy: a stealer must let us leave
 * our stack) before the switch. The head needs no busy check (see top).
 * Anything unusual — an empty queue, a contended lock — takes switch_from.
 */
static void yield_slow(struct fthread *self, struct fvp *v, int locked) __attribute__((noinline));
static void yield_slow(struct fthread *self, struct fvp *v, int locked)
{
	if (locked)
		uspin_unlock(&v->lock);
	vp_enable(v->vpp);
	switch_from(self, YIELD);       /* looks at the other VPs' queues too */
}

__attribute__((optimize("omit-frame-pointer")))
static void fifo_yield(struct thread *self_t)
{
	struct fthread *self = (struct fthread *)self_t;
	struct vp_page *vpp = vp_self();
	vpp->disabled = 1;
	__asm__ volatile("" ::: "memory");
	struct fvp *v = vp_pkg(vpp);
	if (!uspin_trylock(&v->lock))
		return yield_slow(self, v, 0);
	struct fthread *tail = v->tail;
	if (!tail)
		return yield_slow(self, v, 1);
	struct fthread *next = tail->next;      /* the head */
	self->lc.busy = 1;
	if (next == tail)                       /* it was alone: now we are */
		self->next = self;
	else {
		self->next = next->next;
		tail->next = self;
	}
	v->tail = self;
	uspin_unlock(&v->lock);
	next->t.vpp = vpp;
	vpp->current_thread = (uint64_t)&next->t;
	lctx_swap(&self->lc, &next->lc);
	vpp = vp_self();                 /* back, maybe on another VP */
	vpp->disabled = 0;
	__asm__ volatile("" ::: "memory");
	if (vpp->pending)
		syscall0(SYS_vp_poll);
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
	v->seed = (unsigned)idx * 2654435761u + 1;
	v->vpp = upcall_register(idx, handler, UPCALL_STACK);
	if (!v->vpp) {
		printf("fifo: cannot register upcalls on VP %d\n", idx);
		exit(70);
	}
	v->vpp->warn_ns = fifo_warn_ns;
	v->vpp->want_preempted = 1;
	v->vpp->user_data[VPP_PKG] = (uint64_t)v;
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
