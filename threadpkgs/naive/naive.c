/*
 * naive: a conventional user-level thread package, the baseline for
 * "what a thread package can do without help from the kernel".
 *
 * Its VPs are classic ones (rtpkg.classic): no upcall entry, no
 * preemption warning. So a thread that blocks in the kernel (sleep, I/O,
 * futex, a slow page) blocks its whole VP, and the threads queued behind
 * it wait until some other VP of the package picks them up. The kernel
 * may also preempt a VP at any instruction, with no notice. Idle VPs wait
 * in the kernel on a futex (the runtime's classic idle).
 *
 * The policy: one FIFO run queue shared by all VPs. With more VPs than
 * CPUs a yield also gives up the processor (pick): some VPs then wait
 * for a processor, each holding the thread it was running, and the
 * threads passing through the running VPs would take every turn while
 * the held ones starve. A conventional package cannot tell which VPs
 * wait, only that some must.
 *
 * Time slices (the runtime's, rtpkg.slice_ns): a thread that computes
 * while another waits is cut by its VP's one-shot timer, whose interrupt
 * (a classic VP's, ulib/rt/intr.c, as for a signal) has it yield: the
 * kernel timer a conventional package would arm (setitimer) too.
 */
#include <animart/sys.h>
#include <animart/rtq.h>

static struct rtq runq;

static struct rtvp *enqueue(struct rtvp *v, struct uthread *t, int why)
{
	(void)why;
	rt_slice_note(v);            /* t waits: a slice for the thread on v */
	rtq_push(&runq, t, 0);
	return 0;
}

static struct rtpkg naive;

/* A yield's pick (see the top). */
static __attribute__((noinline)) struct uthread *pick_yield(void)
{
	if (naive.nvps > naive.ncpu)
		sys_yield();
	struct uthread *t = rtq_pop(&runq);
	/* Nobody queued: the thread that should run next may be held by
	   a VP the kernel has off its CPU (other processes share the CPUs
	   too), so give the processor up as Linux's sched_yield does, and
	   look again. */
	if (!t) {
		sys_yield();
		t = rtq_pop(&runq);
	}
	return t;
}

/* cur != 0: cur yields. Its own function, so that the other picks (a
   block's, an exit's: create+join, signal-wait) keep cur in no register
   across the lock: 10 instructions of naive's create+join. */
static struct uthread *pick(struct rtvp *v, struct uthread *cur)
{
	(void)v;
	if (cur)
		return pick_yield();
	return rtq_pop(&runq);
}

/* A fork's child: the queued threads are not in it. */
static void fork_reset(void)
{
	runq = (struct rtq){ 0 };
}

static struct rtpkg naive = {
	.ops = RT_OPS(PKG_NAME),
	.fork_reset = fork_reset,
	.classic = 1,
	.enqueue = enqueue,
	.pick = pick,
	.slice_ns = 1000000,         /* 1 ms while another waits */
};

RT_PACKAGE(naive, 0);             /* no priorities */
