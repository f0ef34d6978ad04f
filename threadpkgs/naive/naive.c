/*
 * naive: a conventional user-level thread package, the baseline for
 * "what a thread package can do without help from the kernel".
 *
 * Its VPs are classic ones: no upcall entry, no preemption warning. So a
 * thread that blocks in the kernel (sleep, I/O, futex, a slow page)
 * blocks its whole VP, and the threads queued behind it wait until some
 * other VP of the package picks them up. The kernel may also preempt a
 * VP at any instruction, with no notice.
 *
 * Threads share one FIFO run queue under one lock and switch with the
 * light context (lctx). The lock covers only the queue, not the switch:
 * a thread leaving its VP records what should become of it (requeued,
 * parked, exited) and the code that runs next on that VP — the next
 * thread, or the VP's idle loop — does it once the old context is saved
 * (finish_switch). So a thread is never on the queue while it is still
 * on its stack, and no VP ever waits for a particular other VP to finish
 * a switch (which, if that VP is off its CPU, can take a whole quantum).
 *
 * A VP with nothing to run waits in the kernel on a futex (wake_seq)
 * instead of spinning; whoever queues a thread wakes one such VP.
 *
 * The kernel can preempt a VP anywhere, also while it holds the queue
 * lock. A VP waiting for the lock spins a bounded number of times, then
 * gives up its processor (sys_yield), so the preempted holder can run
 * and release it even with several VPs on one CPU. A preempted VP also
 * holds the thread it was running; with more VPs than CPUs, yield gives
 * the processor away too, so those VPs (and threads) take turns.
 *
 * Thread descriptors (with their stacks) are type-stable: once finished
 * and joined they go on a free list, never back to malloc. sync.c may
 * call thread_unblock() on a thread that has just exited (see
 * kthread.c); on a recycled naive descriptor that is at worst a spurious
 * wake-up, which every waiter tolerates.
 */
#include <stdlib.h>
#include <stdio.h>
#include <sys.h>
#include <upcall.h>
#include <pkg.h>

#define STACK_SIZE   (64 * 1024 - 16)  /* one malloc size class, header included */
#define VP_STACK     (16 * 1024)       /* a VP's idle loop */
#define SPINS        100               /* spins before giving up the processor */

enum { NONE, YIELD, PARK, EXIT };      /* what becomes of a thread leaving its VP */

struct nthread {
	struct thread t;             /* first: the standard descriptor */
	struct lctx lc;              /* where it resumes */
	struct nthread *next;        /* run queue or free list */
	volatile int oncpu;          /* 0 once it has left its stack for good */
	void *(*fn)(void *);
	void *arg;
	char *stack;
};

struct nvp {
	struct lctx idle;            /* the VP's idle loop, while a thread runs */
	struct nthread *prev;        /* the thread that just left this VP */
	int prev_action;             /* and what becomes of it */
};

static struct nvp vps[MAXVP];        /* by VP index */
static volatile int nvps;            /* VPs running naive */
static int ncpu = 1;                 /* CPUs online */

static const struct thread_ops naive_ops;

/*
 * Test-and-test-and-set lock. A waiter spins a while, then gives up its
 * processor: the holder may be a preempted VP waiting for this very CPU.
 * (A ticket lock would be fairer, but hands the lock to whichever waiter
 * is next, running or not; with VPs off their CPUs every handoff would
 * wait for one to come back.)
 */
struct nlock {
	volatile int locked;
};

static void nlock_acquire(struct nlock *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		int i = 0;
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			if (++i < SPINS)
				__asm__ volatile("pause");
			else {
				sys_yield();
				i = 0;
			}
	}
}

static void nlock_release(struct nlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* The run queue, and the futex idle VPs wait on. */
static struct nlock rq;
static struct nthread *head, *tail;
static volatile uint32_t wake_seq;   /* bumped at every enqueue */
static volatile int nidle;           /* VPs waiting on wake_seq (or about to) */

/* Finished descriptors, for reuse (see the top). */
static struct nlock pool_lock;
static struct nthread *pool;

/* Queue operations; the caller holds rq. */
static void enqueue(struct nthread *t)
{
	t->next = 0;
	if (tail)
		tail->next = t;
	else
		head = t;
	tail = t;
	wake_seq++;
}

static struct nthread *dequeue(void)
{
	struct nthread *t = head;
	if (t) {
		head = t->next;
		if (!head)
			tail = 0;
	}
	return t;
}

/* Queue t (created, unblocked) and wake an idle VP if there is one. */
static void make_runnable(struct nthread *t)
{
	nlock_acquire(&rq);
	enqueue(t);
	nlock_release(&rq);
	if (__atomic_load_n(&nidle, __ATOMIC_ACQUIRE))
		syscall2(SYS_futex_wake, &wake_seq, 1);
}

/* Run t on the calling VP from `from` (a thread's or the idle loop's
   context, saved there); returns when something switches back to it. */
static void run(struct lctx *from, struct nthread *t)
{
	struct vp_page *vpp = vp_self();
	t->t.vpp = vpp;
	vpp->current_thread = (uint64_t)&t->t;
	lctx_swap(from, &t->lc);
}

/* Finish what the thread that last left VP v asked for (see the top). */
static void finish_switch(struct nvp *v)
{
	struct nthread *p = v->prev;
	if (!p)
		return;
	v->prev = 0;
	switch (v->prev_action) {
	case YIELD:
		make_runnable(p);
		break;
	case PARK:
		/* The interface's rule: commit only once its context is saved. */
		if (!thread_park_commit(&p->t))
			make_runnable(p);    /* an unblock came first */
		break;
	case EXIT:
		__atomic_store_n(&p->oncpu, 0, __ATOMIC_RELEASE);
		break;
	}
}

/* The calling thread leaves its VP; `action` says what becomes of it.
   Returns when it runs again, perhaps on another VP. */
static void switch_away(struct nthread *self, int action)
{
	nlock_acquire(&rq);
	struct nthread *next = dequeue();
	nlock_release(&rq);
	if (!next && action == YIELD)
		return;                  /* nobody to yield to */
	struct nvp *v = &vps[vp_index()];
	v->prev = self;
	v->prev_action = action;
	if (next) {
		run(&self->lc, next);
	} else {
		vp_self()->current_thread = 0;
		lctx_swap(&self->lc, &v->idle);
	}
	finish_switch(&vps[vp_index()]);
}

/* A VP's idle loop: run queued threads; when there are none, wait in the
   kernel until one is queued. */
__attribute__((noreturn)) static void idle_loop(void)
{
	struct nvp *v = &vps[vp_index()];
	for (;;) {
		finish_switch(v);
		nlock_acquire(&rq);
		struct nthread *t = dequeue();
		uint32_t seq = wake_seq;
		if (!t)
			__atomic_fetch_add(&nidle, 1, __ATOMIC_ACQ_REL);
		nlock_release(&rq);
		if (t) {
			run(&v->idle, t);
			continue;
		}
		/* Returns at once if a thread was queued since we looked. */
		syscall3(SYS_futex_wait, &wake_seq, seq, 0);
		__atomic_fetch_sub(&nidle, 1, __ATOMIC_ACQ_REL);
	}
}

/* First code of every thread. */
static void trampoline(void *arg)
{
	struct nthread *t = arg;
	finish_switch(&vps[vp_index()]);
	thread_exit(t->fn(t->arg));
}

/* Make the calling VP a classic one: the kernel then blocks the whole VP
   on a blocking call and sends it no warnings and no events. (A fresh VP
   page is all zero already; this says so, and undoes any earlier owner.) */
static void classic_vp(void)
{
	struct vp_page *vpp = vp_self();
	vpp->upcall_entry = 0;
	vpp->warn_ns = 0;
	vpp->want_preempted = 0;
	vpp->current_thread = 0;
	ncpu = (int)sys_getinfo(INFO_NCPU);
	__atomic_fetch_add(&nvps, 1, __ATOMIC_RELAXED);
}

static void vp_entry(void *arg)
{
	(void)arg;
	classic_vp();
	idle_loop();
}

static int naive_add_vps(int n)
{
	for (int i = 0; i < n; i++) {
		char *stack = malloc(VP_STACK);
		if (!stack)
			return i;
		uint64_t rsp = (((uint64_t)stack + VP_STACK) & ~15UL) - 8;   /* as if called */
		if (syscall3(SYS_vp_create, (uint64_t)vp_entry, rsp, 0) < 0) {
			free(stack);
			return i;
		}
	}
	return n;
}

static struct nthread *pool_get(void)
{
	nlock_acquire(&pool_lock);
	struct nthread *t = pool;
	if (t)
		pool = t->next;
	nlock_release(&pool_lock);
	if (t)
		return t;
	t = malloc(sizeof *t);
	char *stack = t ? malloc(STACK_SIZE) : 0;
	if (!stack) {
		free(t);
		return 0;
	}
	t->stack = stack;
	return t;
}

static struct thread *naive_create(void *(*fn)(void *), void *arg)
{
	/* Created from another package before any naive VP exists: bring
	   one, or the thread would never run. */
	static volatile int started;
	if (!__atomic_load_n(&nvps, __ATOMIC_ACQUIRE) &&
	    !__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL) && naive_add_vps(1) != 1)
		return 0;
	struct nthread *t = pool_get();
	if (!t)
		return 0;
	thread_init(&t->t, &naive_ops);
	t->t.pkg = t;
	t->fn = fn;
	t->arg = arg;
	t->oncpu = 1;
	lctx_make(&t->lc, t->stack, STACK_SIZE, trampoline, t);
	make_runnable(t);
	return &t->t;
}

static void naive_block(struct thread *self)
{
	switch_away((struct nthread *)self, PARK);
}

static void naive_unblock(struct thread *t)
{
	make_runnable((struct nthread *)t);
}

/*
 * yield: to the next queued thread. With more VPs than CPUs, some VPs
 * wait for a processor, each holding the thread it was running; give
 * ours up first (sys_yield), or the threads passing through the running
 * VPs would take every turn while the held ones starve. A conventional
 * package cannot tell which VPs wait, only that some must.
 */
static void naive_yield(struct thread *self)
{
	if (nvps > ncpu)
		sys_yield();
	switch_away((struct nthread *)self, YIELD);
}

__attribute__((noreturn)) static void naive_exit(struct thread *self)
{
	switch_away((struct nthread *)self, EXIT);
	abort();
}

static void naive_free(struct thread *t)
{
	struct nthread *n = (struct nthread *)t;
	/* It is between thread_exit and the end of its last switch: let it
	   finish, even if its VP waits for our processor. */
	while (__atomic_load_n(&n->oncpu, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&head, __ATOMIC_RELAXED))
			thread_yield();
		else
			sys_yield();
	}
	nlock_acquire(&pool_lock);
	n->next = pool;
	pool = n;
	nlock_release(&pool_lock);
}

static const struct thread_ops naive_ops = {
	.name = "naive",
	.block = naive_block,
	.unblock = naive_unblock,
	.yield = naive_yield,
	.exit = naive_exit,
	.free = naive_free,
};

struct mainarg {
	void *(*fn)(void *);
	void *arg;
};

static void *main_thread(void *a)
{
	struct mainarg *m = a;
	exit((int)(intptr_t)m->fn(m->arg));
}

/* The calling VP becomes the first naive VP; its idle loop runs on the
   program's initial stack. */
__attribute__((noreturn)) static void naive_run(int nvp, void *(*fn)(void *), void *arg)
{
	static struct mainarg m;
	m.fn = fn;
	m.arg = arg;
	classic_vp();
	if (!naive_create(main_thread, &m)) {
		printf("naive: cannot create the main thread\n");
		exit(70);
	}
	if (nvp > 1 && naive_add_vps(nvp - 1) != nvp - 1)
		printf("naive: could not start all %d VPs\n", nvp);
	idle_loop();
}

const struct pkg naive_pkg = {
	.name = "naive",
	.run = naive_run,
	.create = naive_create,
	.add_vps = naive_add_vps,
};
