/*
 * tutor: the smallest first-class thread package, built step by step in
 * docs/writing-a-thread-package.md (whose code blocks are this file).
 *
 * It is a policy only: the VP runtime (<vprt.h>) starts VPs, takes the
 * upcalls, switches contexts and recycles descriptors; tutor says which
 * thread runs next. One FIFO run queue, shared by all its VPs. A thread
 * that blocks in the kernel blocks only itself (the runtime runs another
 * on its VP); on a preemption warning the runtime puts the running thread
 * back on the queue and gives the VP up, so no thread waits with a VP
 * that is off its CPU. A thread that computes while another waits yields
 * to it every SLICE_NS (the runtime's time slices). Simple rather than fast.
 */
#include <animart/rtq.h>

#define WARN_NS 500000               /* preemption warning asked for: 0.5 ms */
#define SLICE_NS 1000000             /* time slice while others wait: 1 ms */

static struct rtq runq;              /* the one run queue */

/* A thread became runnable (created, yielded, unblocked, interrupted):
   queue it at the tail. Any VP may run it, so name none. It waits: the
   thread on v gets a time slice. */
static struct rtvp *enqueue(struct rtvp *v, struct uthread *t, int why)
{
	(void)why;
	rt_slice_note(v);
	rtq_push(&runq, t, 0);
	return 0;
}

/* The next thread for VP v: the head of the queue, or none. A yielding
   thread (cur) gives way to any queued one. */
static struct uthread *pick(struct rtvp *v, struct uthread *cur)
{
	(void)v, (void)cur;
	return rtq_pop(&runq);
}

/* A VP joins: ask the kernel for a warning before each preemption. */
static void init_vp(struct rtvp *v)
{
	v->vpp->warn_ns = WARN_NS;
}

/* A fork's child: the queued threads are not in it. */
static void fork_reset(void)
{
	runq = (struct rtq){ 0 };
}

static struct rtpkg tutor = {
	.ops = RT_OPS(PKG_NAME),
	.fork_reset = fork_reset,
	.init_vp = init_vp,
	.enqueue = enqueue,
	.pick = pick,
	.slice_ns = SLICE_NS,
};

RT_PACKAGE(tutor, 0);             /* no priorities */
