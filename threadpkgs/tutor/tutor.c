/*
 * tutor: the smallest first-class thread package, built step by step in
 * docs/writing-a-thread-package.md (whose code blocks are this file).
 *
 * One shared FIFO run queue; every VP runs a scheduler loop on its
 * upcall stack with software interrupts disabled, and every switch goes
 * through it. Upcalls make blocking first-class: on EV_BLOCKED the VP
 * runs another thread, on EV_UNBLOCKED the returned thread is queued. On
 * a preemption warning the VP puts its thread back on the queue and
 * gives up its processor, so no thread waits with a VP that is off its
 * CPU. Simple rather than fast.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys.h>
#include <upcall.h>
#include <pkg.h>

#define STACK_SIZE   (64 * 1024 - 16)  /* a thread's stack */
#define UPCALL_STACK (64 * 1024)       /* a VP's upcall stack: handler and scheduler */
#define BOOT_STACK   (16 * 1024)       /* a new VP's first few calls */
#define WARN_NS      500000            /* preemption warning asked for: 0.5 ms */
#define SPINS        100               /* lock spins before giving up the processor */

struct tthread {
	struct thread t;             /* first: the standard descriptor */
	struct lctx lc;              /* saved by a voluntary switch */
	struct uctx ctx;             /* full context, when it comes from the kernel */
	uint8_t fpu[512] __attribute__((aligned(16)));
	int full;                    /* resume from ctx+fpu rather than lc */
	struct tthread *next;        /* run queue, or free list */
	volatile int oncpu;          /* 0 once it has left its stack for good */
	void *(*fn)(void *);
	void *arg;
	char *stack;
};

enum { YIELD = 1, PARK, EXIT };   /* what a thread leaving its VP asks for */

struct tvp {
	struct vp_page *vpp;
	struct lctx sched;           /* the scheduler loop, entered afresh each time */
	struct tthread *prev;        /* the thread that just switched away */
	int prev_action;             /* and what it asked for */
	volatile int idle;           /* waiting in SYS_vp_idle: signal to wake */
};

static struct tvp vps[MAXVP];       /* by VP index */
static int vp_list[MAXVP];          /* indices of tutor's VPs */
static volatile int nvps;

/* Software interrupts off: no upcall can run on this VP until crit_leave. */
static int crit_enter(void)
{
	struct vp_page *vpp = vp_self();
	int was = vpp->disabled;
	vpp->disabled = 1;
	__asm__ volatile("" ::: "memory");
	return was;
}

static void crit_leave(int was)
{
	if (!was)
		vp_enable(vp_self());    /* and take what arrived meanwhile */
}

/* A spin lock. The kernel may preempt its holder (a VP) at any moment,
   so a waiter that has spun a while gives up its processor. */
static void lock(volatile int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		for (int i = 0; __atomic_load_n(l, __ATOMIC_RELAXED); i++)
			if (i % SPINS == SPINS - 1)
				sys_yield();
}

static void unlock(volatile int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* The run queue. Its lock is taken only with software interrupts off, so
   an upcall never finds it held by the thread it interrupted. */
static volatile int rq_lock;
static struct tthread *head, *tail;

static struct tthread *dequeue(void)
{
	lock(&rq_lock);
	struct tthread *t = head;
	if (t) {
		head = t->next;
		if (!head)
			tail = 0;
	}
	unlock(&rq_lock);
	return t;
}

/* Queue t at the tail, and wake a VP that idles. */
static void enqueue(struct tthread *t)
{
	lock(&rq_lock);
	t->next = 0;
	if (tail)
		tail->next = t;
	else
		head = t;
	tail = t;
	unlock(&rq_lock);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* pairs with sched_loop's */
	for (int i = 0; i < nvps; i++)
		if (vps[vp_list[i]].idle) {
			syscall2(SYS_vp_signal, vp_list[i], 0);
			break;
		}
}

/* Handle the events in the ring. Returns which of these it saw. */
#define SAW_BLOCKED  1               /* the thread `cur` blocked in the kernel */
#define SAW_WARNING  2               /* the VP is about to be preempted */

static int drain(struct tvp *v, struct tthread *cur)
{
	struct vp_page *vpp = v->vpp;
	int saw = 0;
	do {
		vpp->pending = 0;
		for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++) {
			struct tthread *t = (struct tthread *)e->thread;
			switch (e->type) {
			case EV_BLOCKED:     /* the kernel keeps its registers; we keep its FPU */
				memcpy(t->fpu, vpp->fpu, sizeof t->fpu);
				if (t == cur)
					saw |= SAW_BLOCKED;
				break;
			case EV_UNBLOCKED:   /* back from the kernel, with its context */
				t->ctx = e->ctx;
				t->full = 1;
				enqueue(t);
				break;
			case EV_WARNING:
				saw |= SAW_WARNING;
				break;
			default:             /* signals only wake us up */
				break;
			}
		}
		if (vpp->pending)
			syscall0(SYS_vp_poll);   /* more wait in the kernel: fetch them */
	} while (vpp->pending || vp_next_event(vpp));
	return saw;
}

/* Finish the switch of the thread that left this VP (its stack is free now). */
static void finish_switch(struct tvp *v)
{
	struct tthread *p = v->prev;
	v->prev = 0;
	if (!p)
		return;
	if (v->prev_action == YIELD)
		enqueue(p);
	else if (v->prev_action == PARK && !thread_park_commit(&p->t))
		enqueue(p);              /* an unblock came first */
	else if (v->prev_action == EXIT)
		__atomic_store_n(&p->oncpu, 0, __ATOMIC_RELEASE);
}

/* Run t on VP v. Never returns: t comes back through the scheduler. */
__attribute__((noreturn)) static void run(struct tvp *v, struct tthread *t)
{
	t->t.vpp = v->vpp;
	v->vpp->current_thread = (uint64_t)&t->t;
	if (t->full) {
		t->full = 0;
		vp_switch(v->vpp, &t->ctx, t->fpu);   /* restores all, enables */
	}
	lctx_jump(&t->lc);               /* t enables once it is back */
}

/* The scheduler loop: on the upcall stack, software interrupts off. */
__attribute__((noreturn)) static void sched_loop(void *arg)
{
	struct tvp *v = arg;
	finish_switch(v);
	for (;;) {
		if (drain(v, 0) & SAW_WARNING)
			sys_yield();         /* we hold no thread: just let go */
		struct tthread *t = dequeue();
		if (t)
			run(v, t);
		v->idle = 1;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* pairs with enqueue's */
		if (!__atomic_load_n(&head, __ATOMIC_RELAXED) && !vp_next_event(v->vpp) &&
		    !v->vpp->pending)
			syscall0(SYS_vp_idle);   /* until an event (or a signal) comes */
		v->idle = 0;
	}
}

/* Start v's scheduler loop afresh at the top of its upcall stack, saving
   the caller's context in *from (0: nothing to save, never come back).
   Nothing on that stack outlives a switch to a thread: a thread runs
   with software interrupts on, and the next upcall starts at the top. */
static void to_sched(struct tvp *v, struct lctx *from)
{
	lctx_make(&v->sched, (char *)v->vpp->upcall_stack - UPCALL_STACK, UPCALL_STACK,
		  sched_loop, v);
	if (from)
		lctx_swap(from, &v->sched);
	else
		lctx_jump(&v->sched);
}

/* Leave the calling thread's VP for the scheduler; `action` says why.
   Returns when the thread is run again, perhaps on another VP. */
static void switch_away(struct tthread *self, int action)
{
	crit_enter();
	struct tvp *v = &vps[vp_index()];
	v->prev = self;
	v->prev_action = action;
	v->vpp->current_thread = 0;
	to_sched(v, &self->lc);
	vp_enable(vp_self());            /* run() left us disabled */
}

static void tutor_block(struct thread *self)
{
	switch_away((struct tthread *)self, PARK);
}

static void tutor_unblock(struct thread *t)
{
	int was = crit_enter();          /* the caller may be of any package */
	enqueue((struct tthread *)t);
	crit_leave(was);
}

static void tutor_yield(struct thread *self)
{
	switch_away((struct tthread *)self, YIELD);
}

__attribute__((noreturn)) static void tutor_exit(struct thread *self)
{
	switch_away((struct tthread *)self, EXIT);
	abort();
}

/* Descriptors are never handed back to malloc: a late thread_unblock()
   of a thread that has exited (sync.c allows it) must find a descriptor,
   and at worst wakes its next user spuriously, which waiters tolerate. */
static volatile int pool_lock;
static struct tthread *pool;

static void tutor_free(struct thread *t)
{
	struct tthread *tt = (struct tthread *)t;
	while (__atomic_load_n(&tt->oncpu, __ATOMIC_ACQUIRE))
		thread_yield();          /* it is still leaving its stack */
	lock(&pool_lock);
	tt->next = pool;
	pool = tt;
	unlock(&pool_lock);
}

static const struct thread_ops tutor_ops = {
	.name = "tutor",
	.block = tutor_block,
	.unblock = tutor_unblock,
	.yield = tutor_yield,
	.exit = tutor_exit,
	.free = tutor_free,
};

/* The upcall handler: a thread (cur) was interrupted by events. */
static void handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	struct tvp *v = &vps[pp->vp_index];
	struct tthread *cur = (struct tthread *)vpp->current_thread;
	int saw = drain(v, cur);
	if (cur && !(saw & SAW_BLOCKED)) {
		if (!(saw & SAW_WARNING))
			vp_resume(vpp);      /* just news: cur goes on */
		if (cur->t.crit) {
			cur->t.yield_due = 1;   /* in a spin lock: spin_unlock yields */
			vp_resume(vpp);
		}
		/* Warned: cur goes back on the queue, where any VP can take it. */
		cur->ctx = vpp->save;
		memcpy(cur->fpu, vpp->fpu, sizeof cur->fpu);
		cur->full = 1;
		enqueue(cur);
	}
	vpp->current_thread = 0;         /* a blocked cur is the kernel's now */
	if (saw & SAW_WARNING)
		sys_yield();             /* honor the warning, holding no thread */
	sched_loop(v);
}

static void trampoline(void *arg)
{
	struct tthread *t = arg;
	vp_enable(vp_self());            /* run() left us disabled */
	thread_exit(t->fn(t->arg));
}

static int tutor_add_vps(int n);
static volatile int started;         /* some tutor VP runs, or is coming */

static struct thread *tutor_create(void *(*fn)(void *), void *arg)
{
	/* Called from another package before tutor runs: bring a VP. */
	if (!__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL) && tutor_add_vps(1) != 1)
		return 0;
	lock(&pool_lock);
	struct tthread *t = pool;
	if (t)
		pool = t->next;
	unlock(&pool_lock);
	if (!t) {
		t = malloc(sizeof *t);
		if (!t || !(t->stack = malloc(STACK_SIZE))) {
			free(t);
			return 0;
		}
	}
	thread_init(&t->t, &tutor_ops);
	t->t.pkg = t;
	t->fn = fn;
	t->arg = arg;
	t->full = 0;
	t->oncpu = 1;
	lctx_make(&t->lc, t->stack, STACK_SIZE, trampoline, t);
	tutor_unblock(&t->t);            /* queue it, from any package's thread */
	return &t->t;
}

/* Make the calling VP a tutor VP (software interrupts still off). */
static struct tvp *adopt_vp(void)
{
	int i = vp_index();
	struct tvp *v = &vps[i];
	v->vpp = upcall_register(i, handler, UPCALL_STACK);
	if (!v->vpp) {
		printf("tutor: cannot register upcalls on VP %d\n", i);
		exit(70);
	}
	v->vpp->warn_ns = WARN_NS;
	vp_list[__atomic_fetch_add(&nvps, 1, __ATOMIC_ACQ_REL)] = i;
	return v;
}

static void vp_entry(void *arg)
{
	(void)arg;
	to_sched(adopt_vp(), 0);
}

static int tutor_add_vps(int n)
{
	for (int i = 0; i < n; i++) {
		char *stack = malloc(BOOT_STACK);
		uint64_t rsp = (((uint64_t)stack + BOOT_STACK) & ~15UL) - 8;   /* as if called */
		if (!stack || syscall3(SYS_vp_create, (uint64_t)vp_entry, rsp, 0) < 0) {
			free(stack);
			return i;
		}
	}
	return n;
}

static void *(*main_fn)(void *);
static void *main_arg;

static void *main_thread(void *arg)
{
	(void)arg;
	exit((int)(intptr_t)main_fn(main_arg));
}

__attribute__((noreturn)) static void tutor_run(int nvp, void *(*fn)(void *), void *arg)
{
	main_fn = fn;
	main_arg = arg;
	started = 1;
	struct tvp *v = adopt_vp();      /* the calling VP is the first */
	if (!tutor_create(main_thread, 0)) {
		printf("tutor: cannot create the main thread\n");
		exit(70);
	}
	tutor_add_vps(nvp - 1);
	to_sched(v, 0);
	abort();
}

const struct pkg tutor_pkg = {
	.name = "tutor",
	.run = tutor_run,
	.create = tutor_create,
	.add_vps = tutor_add_vps,
};
