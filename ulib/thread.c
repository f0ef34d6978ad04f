/*
 * The package-independent half of the thread interface: park/unpark,
 * join, and lctx_make. See <thread.h> and docs/thread-interface.md.
 */
#include <string.h>
#include <thread.h>

/* On every block, unblock and join (make bench counts them): no frame
   pointer, as in rt_switch.c. */
#pragma GCC optimize("omit-frame-pointer")

static volatile uint64_t next_id = 1;

void thread_init(struct thread *t, const struct thread_ops *ops)
{
	*t = (struct thread){ .ops = ops, .id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED) };
}

/*
 * Always an atomic read-modify-write, even when a permit is already there
 * (PERMIT -> PERMIT): the locked instruction is the full barrier that
 * orders the caller's earlier stores (the condition it just made true)
 * before its look at t->park. A plain load could be satisfied while those
 * stores still sit in this CPU's store buffer: then t consumes the old
 * permit, rereads the condition, still finds it false, and parks for good
 * (found by fifo's park ping-pong at -smp 2: both threads parked).
 */
void thread_unblock(struct thread *t)
{
	int s = __atomic_load_n(&t->park, __ATOMIC_RELAXED);
	for (;;) {
		int to = s == PARK_PARKED ? PARK_RUN : PARK_PERMIT;
		if (__atomic_compare_exchange_n(&t->park, &s, to, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
			if (s == PARK_PARKED)
				t->ops->unblock(t);   /* we took it out of PARKED: we requeue it */
			return;
		}
	}
}

/*
 * Exit and join are ordered so that no package can livelock on them: the
 * joiner learns of the exit (JOIN_DONE) only from thread_exited(), which
 * the package calls once the exiting thread is off its stack. Waking the
 * joiner first let a higher-priority joiner run on the exiting thread's
 * VP and wait, yielding to itself, for the thread it had preempted to
 * leave its stack.
 */
void thread_exit(void *retval)
{
	struct thread *self = thread_self();
	self->retval = retval;
	self->ops->exit(self);
}

void thread_exited(struct thread *t)
{
	uint64_t j = __atomic_exchange_n(&t->join, JOIN_DONE, __ATOMIC_ACQ_REL);
	if (j && j != JOIN_DONE)
		thread_unblock((struct thread *)j);   /* t may be reused from here on */
}

void *thread_join(struct thread *t)
{
	struct thread *self = thread_self();
	uint64_t expect = 0;
	__atomic_compare_exchange_n(&t->join, &expect, (uint64_t)self, 0,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&t->join, __ATOMIC_ACQUIRE) != JOIN_DONE)
		thread_block();
	void *v = t->retval;
	t->ops->free(t);
	return v;
}

void lctx_start(void);

void lctx_make(struct lctx *c, void *stack, uint64_t size, void (*fn)(void *), void *arg)
{
	uint64_t *sp = (uint64_t *)(((uint64_t)stack + size) & ~15UL);
	*--sp = 0;                    /* keeps lctx_start's frame 16-aligned */
	*--sp = (uint64_t)lctx_start; /* lctx_jump's `ret` lands there */
	/* Only what a fresh context reads: the other callee-saved registers
	   are free for it to use, whatever they hold. */
	c->rbp = 0;                   /* ends backtraces */
	c->rsp = (uint64_t)sp;
	c->r12 = (uint64_t)fn;
	c->r13 = (uint64_t)arg;
	c->busy = 0;
	c->mxcsr = 0x1f80;
	c->fcw = 0x37f;
}
