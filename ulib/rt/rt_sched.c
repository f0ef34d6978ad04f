/*
 * The VP runtime (<animart/vprt.h>), part 2: each VP's scheduler loop and the
 * upcall handler.
 *
 * The scheduler loop of a VP runs with software interrupts off, on the
 * VP's upcall stack (a classic VP: a stack of its own), and is entered
 * afresh at the top of that stack every time: nothing on it outlives a
 * switch to a thread. It drains events, asks the policy for a thread, and
 * when there is none waits in the kernel: SYS_vp_idle (woken by an event
 * or rt_kick), or for a classic VP a futex that every enqueue bumps.
 *
 * The upcall handler drains the ring and decides what becomes of the
 * thread it interrupted (cur): it blocked in the kernel (the VP runs
 * another), the kernel preempted the VP or warned it, or the policy wants
 * it switched out (a time slice, a higher priority). A thread inside a
 * spin lock (crit > 0) is never switched out by an upcall: the switch is
 * marked due and spin_unlock does it.
 */
#include <string.h>
#include <animart/sys.h>
#include <animart/vprt.h>
#include <animart/xwait.h>
#include <animart/clock.h>
#include <animart/fault.h>


/* What drain saw */
#define SAW_BLOCKED   1              /* cur blocked in the kernel */
#define SAW_WARNING   2              /* the VP is about to be preempted */
#define SAW_PREEMPTED 4              /* the VP was preempted (want_preempted) */
#define SAW_RESCHED   8              /* the policy wants cur switched out */
#define SAW_TURN      16             /* a timed wait's end: cur yields (rt_due.c) */

#define STAT(p, f) do { if ((p)->stats) (p)->stats->f++; } while (0)

static int drain(struct rtvp *v, struct uthread *cur)
{
	struct rtpkg *p = v->pkg;
	struct vp_page *vpp = v->vpp;
	int saw = 0;
	/* `pending` says events came while we were disabled (below): test
	   it only after consuming the ring, and clear it just before
	   fetching more. (Clearing it first lost the
	   flag the delivery had set: with 16 older events ahead of it, a
	   thread's EV_BLOCKED stayed in the kernel, the handler resumed the
	   thread as if its blocking call had returned, and the thread later
	   ran twice; timedrace catches it.) */
	for (;;) {
		for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++) {
			struct uthread *t = (struct uthread *)e->thread;
			switch (e->type) {
			case EV_BLOCKED:     /* the kernel keeps its registers; we keep its FPU */
				STAT(p, blocked);
				t->t.nvcsw++;
				memcpy(t->fpu, vpp->fpu, sizeof t->fpu);
				if (t == cur)
					saw |= SAW_BLOCKED;
				break;
			case EV_UNBLOCKED:   /* back from the kernel, with its context */
				STAT(p, unblocked);
				t->ctx = e->ctx;
				rt_make_full(t);
				/* a timed park's end: a turn, on packages with no
				   time slices (rt_due.c) */
				if (cur && !p->event &&
				    __atomic_load_n(&t->t.park, __ATOMIC_RELAXED) == PARK_TIMED)
					saw |= SAW_TURN;
				rt_make_runnable(p, v, t, RQ_UNBLOCK);
				break;
			case EV_WARNING:
				STAT(p, warnings);
				saw |= SAW_WARNING;
				break;
			case EV_PREEMPTED:
				STAT(p, preempted);
				saw |= SAW_PREEMPTED;
				break;
			case EV_FAULT:       /* cur faulted: it runs its handler when it next
						runs (ulib/rt/fault.c), wherever that is */
				fault_redirect(&vpp->save, e, cur ? &cur->t : 0);
				break;
			case EV_WAKE:        /* a cross-space wake-up: its token is untrusted */
				xw_event(e->token);
				break;
			case EV_PSIG:        /* another process's signal: the thread here takes
						it (or, between threads, the next one resumed
						from a full context: resume_full) */
				thread_kern_sigs = thread_proc_sigs = 1;
				if (cur)
					__atomic_fetch_or(&cur->t.sigpend, SIGPEND_WAITING,
							  __ATOMIC_RELAXED);
				break;
			case EV_TIMER:       /* the VP's one timer: the runtime's (rt_tq.c) */
				if (e->token == TQ_TOKEN) {
					int r = rt_tq_fire(v, cur, e);
					/* a timed wait's end: a turn, as below */
					if ((r & TQ_WOKE) && cur && !p->event)
						saw |= SAW_TURN;
					if (r & TQ_RESCHED)
						saw |= SAW_RESCHED;
					/* a slice's end: cur yields (rt_tq.c); with no
					   cur, the next gets a slice (rt_run_thread) */
					if (r & TQ_SLICE)
						v->slice_ended = 1;
					if ((r & TQ_SLICE) && cur && (!p->sliced || p->sliced(cur))) {
						saw |= SAW_TURN;
						v->slice_from = cur;
					}
					break;
				}
				__attribute__((fallthrough));   /* a program's own */
			default:             /* timers and signals: the policy's */
				/* a signal for the program interrupted every VP:
				   the thread here looks at it (ulib/libc/signal.c) */
				if (e->type == EV_SIGNAL && thread_proc_sigs && cur)
					__atomic_fetch_or(&cur->t.sigpend, SIGPEND_WAITING,
							  __ATOMIC_RELAXED);
				if (p->event && p->event(v, cur, e))
					saw |= SAW_RESCHED;
				break;
			}
		}
		/* `pending`: 0, nothing came while we were disabled; 1, the
		   kernel put events in the ring and none remain queued (the next
		   pass consumes them: no kernel entry, the usual case after an
		   idle wake-up); 2, more wait in the kernel (SYS_vp_poll fetches
		   them). The kernel writes it only on this VP's own way out to
		   user mode, that is between two of our instructions: so read and
		   clear it in one (an interrupt between a load and a store could
		   set 2 and the store would erase it). An event queued after the
		   kernel said 1 brings a kernel entry of its own (event_post's
		   IPI, or this VP's next dispatch), which sets pending again. */
		uint32_t pd = __atomic_exchange_n(&vpp->pending, 0, __ATOMIC_ACQ_REL);
		if (!pd)
			return saw;
		if (pd > 1)              /* more are queued in the kernel */
			syscall0(SYS_vp_poll);
	}
}

/*
 * Spin before idling. A VP that finds no thread would otherwise idle in
 * the kernel at once, and the peer that next makes a thread runnable
 * must wake it: a signal, an IPI, and on the woken CPU the kernel's
 * dispatch and an upcall. On hardware that is microseconds; on an
 * emulated CPU a halted vCPU sleeps in the host, and the wake took tens
 * of microseconds to milliseconds (docs/results.md, cross-CPU wake-up).
 * A program that meets at a barrier hundreds of times a second pays it
 * at every step: fifo's Gaussian elimination at 2 CPUs ran no faster
 * than on 1. So an idle VP first watches for work a while, in user
 * mode, with its idle flag clear (wakers then do not signal it):
 *   - only while a peer VP of the package is on a CPU (only it can make
 *     a thread runnable without the kernel, whose events end the spin);
 *   - only with more than one CPU (on one, the peer cannot run while we
 *     spin);
 *   - at most rt_idlespin_ns (0: never), and not once the kernel has
 *     queued an event, a warning above all: the kernel warns only when
 *     another VP waits for this CPU (kernel/warn.c), and the warning ends
 *     the spin, so a spinning VP keeps nobody waiting past its warning.
 * Returns the thread to run, SPIN_EVENT (drain first) or 0 (idle).
 */
uint64_t rt_idlespin_ns = 50000;
uint64_t rt_idle_calls;

static int peer_on(struct rtpkg *p, struct rtvp *v)
{
	for (int i = 0, n = p->nvps; i < n; i++)
		if (p->vps[i] != v &&
		    __atomic_load_n(&pseudo_page(p->vps[i]->index)->oncpu, __ATOMIC_RELAXED))
			return 1;
	return 0;
}

static int queued(struct rtpkg *p)
{
	for (int i = 0, n = p->nvps; i < n; i++)
		if (__atomic_load_n(&p->vps[i]->lq_len, __ATOMIC_RELAXED))
			return 1;
	return __atomic_load_n(&p->band.top, __ATOMIC_RELAXED) != 0;   /* (rt_band.c) */
}

#define SPIN_EVENT ((struct uthread *)1)

static __attribute__((noinline)) struct uthread *idle_spin_loop(struct rtpkg *p, struct rtvp *v)
{
	uint64_t until = now_ns() + rt_idlespin_ns;
	for (unsigned i = 0;; i++) {
		if (vp_next_event(v->vpp) || v->vpp->pending)
			return SPIN_EVENT;
		/* Look without locks where the queues are the runtime's. */
		if (p->local_yield ? queued(p) : i % 16 == 0) {
			struct uthread *t = p->pick(v, 0);
			if (t)
				return t;
		}
		/* The clock at every round, not every 64th: under QEMU's TCG
		   a pause ends the vCPU's turn, so with icount and two CPUs
		   a round lasted a whole turn of the other CPU (up to the
		   20 us tick) and 64 rounds outlived the quantum. The VP then
		   never went idle: warned, it yielded and came back to spin
		   again, holding its CPU while VPs queued there starved. */
		if (now_ns() > until || (i % 64 == 63 && !peer_on(p, v)))
			return 0;
		__asm__ volatile("pause");
	}
}

/* Inline, so that on one CPU (every icount figure) an idle costs a test
   and no call. */
static inline struct uthread *idle_spin(struct rtpkg *p, struct rtvp *v)
{
	if (p->ncpu < 2 || p->nvps < 2 || p->classic || !rt_idlespin_ns)
		return 0;
	return idle_spin_loop(p, v);
}

/* The scheduler loop; software interrupts off. */
static __attribute__((noreturn)) void sched_loop(void *arg)
{
	struct rtvp *v = arg;
	struct rtpkg *p = v->pkg;
	/* A thread that parked here found nothing to run a moment ago: if
	   no event comes, the first look is the idle look below (after the
	   idle flag, so nothing enqueued meanwhile is missed), not one more
	   before it. A cross-space waiter's park, the usual case, pays one
	   pick less. */
	int look = !v->looked;
	v->looked = 0;
	rt_finish_switch(v);
	for (;;) {
		uint32_t seq = p->wake_seq;
		/* (an empty ring and no pending: nothing to drain, no call; a
		   VP that comes here from a thread's park, a cross-space
		   waiter's above all, usually finds nothing) */
		int news = !p->classic && (vp_next_event(v->vpp) || v->vpp->pending);
		if (news && (drain(v, 0) & SAW_WARNING))
			sys_yield();         /* we hold no thread: just let go */
		struct uthread *t = look || news || p->classic ? p->pick(v, 0) : 0;
		look = 1;
		if (t) {
			if (p->on_run)
				p->on_run(v);
			rt_run_thread(v, t);
		}
		if ((t = idle_spin(p, v))) {
			if (t == SPIN_EVENT)
				continue;
			if (p->on_run)
				p->on_run(v);
			rt_run_thread(v, t);
		}
		/* Signals from another process while every thread waits:
		   wake the threads that take them (EV_PSIG set the flag);
		   look again if some were woken or it could not look yet. */
		if (thread_kern_sigs && thread_signal_dispatch && thread_signal_dispatch())
			continue;
		/* Idle. Say so first, then look once more: an enqueue that
		   missed the flag is seen by that look (both sides fence). */
		v->idle = 1;
		__atomic_fetch_add(&p->nidle, 1, __ATOMIC_ACQ_REL);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if ((t = p->pick(v, 0))) {
			v->idle = 0;
			__atomic_fetch_sub(&p->nidle, 1, __ATOMIC_ACQ_REL);
			if (p->on_run)
				p->on_run(v);
			rt_run_thread(v, t);
		}
		STAT(p, idles);
		if (p->classic) {        /* returns at once if anything was queued since */
			if (syscall3(SYS_futex_wait, &p->wake_seq, seq, 0) == -EINTR)
				thread_kern_sigs = 1;   /* cut short: a signal from another
							   process (kernel/kop.c), which this
							   VP, disabled, takes no interrupt for */
		}
		else if (!vp_next_event(v->vpp) && !v->vpp->pending) {
			if (__builtin_expect(v->tq_lost, 0))
				rt_tq_rearm(v);  /* (its timer, or nothing wakes it) */
			__atomic_fetch_add(&rt_idle_calls, 1, __ATOMIC_RELAXED);
			syscall0(SYS_vp_idle);
		}
		v->idle = 0;
		__atomic_fetch_sub(&p->nidle, 1, __ATOMIC_ACQ_REL);
	}
}

/* Enter v's scheduler loop afresh at the top of its stack, saving the
   caller in *from (0: never come back). */
void rt_sched_enter(struct rtvp *v, struct lctx *from)
{
	lctx_make(&v->sched, v->sched_stack, RT_SCHED_STACK, sched_loop, v);
	if (from)
		lctx_swap(from, &v->sched);
	else
		lctx_jump(&v->sched);
}

/* cur was interrupted at a safe point: save its full context, and let
   the policy queue it (why). */
static void requeue_cur(struct rtvp *v, struct uthread *cur, int why)
{
	cur->t.nivcsw++;
	cur->ctx = v->vpp->save;
	memcpy(cur->fpu, v->vpp->fpu, sizeof cur->fpu);
	rt_make_full(cur);
	rt_cpu_switch(cur, 0);
	v->vpp->current_thread = 0;
	rt_make_runnable(v->pkg, v, cur, why);
}

/* cur, interrupted outside any spin lock, resumes where
   thread_async_hook says (asynchronous cancellation), as if called from
   nowhere: below its red zone, the stack aligned as at a call, a zero
   return address (the entry never returns). */
void rt_async_redirect(struct uctx *c, struct thread *t)
{
	void *entry = thread_async_hook(t);
	if (!entry)
		return;
	uint64_t sp = ((c->rsp - 128) & ~15UL) - 8;
	*(uint64_t *)sp = 0;
	c->rsp = sp;
	c->rip = (uint64_t)entry;
}

/* The upcall handler of every runtime VP (ulib/rt/upcall.S calls it). */
void rt_upcall(struct vp_page *vpp, struct pseudo_page *pp)
{
	(void)pp;
	struct rtvp *v = vp_pkg(vpp);
	struct rtpkg *p = v->pkg;
	struct uthread *cur = (struct uthread *)vpp->current_thread;
	int saw = drain(v, cur);
	if (!cur || (saw & SAW_BLOCKED)) {   /* a blocked cur is the kernel's now */
		rt_cpu_switch(cur, 0);       /* (its time in the kernel from here on is not its) */
		vpp->current_thread = 0;
		sched_loop(v);
	}
	if (thread_async_hook && !cur->t.crit)
		rt_async_redirect(&vpp->save, &cur->t);
	/* Preempted inside a spin lock: cur goes on at once (queued first in
	   line, it waited there for the scheduler loop, and a peer's rescue
	   or a warning could move it behind a waiter that spins for its lock:
	   forklock's fork, preempted in the kernel's copy, hung that way). */
	if ((saw & SAW_PREEMPTED) && cur->t.crit)
		saw &= ~SAW_PREEMPTED;
	if (!(saw & (SAW_PREEMPTED | SAW_RESCHED)) && p->preempt && p->preempt(v, cur))
		saw |= SAW_RESCHED;
	int why = RQ_RESCHED;
	if ((saw & SAW_TURN) && !(saw & SAW_RESCHED)) {
		why = RQ_YIELD;          /* behind its peers, as a yield (prio: its level's tail) */
		saw |= SAW_RESCHED;
	} else
		v->slice_from = 0;       /* see below */
	if (saw & SAW_PREEMPTED) {
		/* Preempted: first in line when the VP is back (a warning or
		   reschedule is moot now). A slice that ended with it does not
		   turn cur out, so rt_run_thread must not take cur's running
		   again for "nobody waits" and drop the slice that its requeue
		   set: a woken thread beside one that computes then never got
		   a turn (slicewait's prio-1 round 0, 1 boot in 6). */
		v->slice_from = 0;
		requeue_cur(v, cur, RQ_PREEMPTED);
		sched_loop(v);
	}
	if (cur->t.crit && (saw & (SAW_WARNING | SAW_RESCHED))) {
		/* Inside a spin lock: leave cur where it is; spin_unlock
		   gives up the VP (a warning) or yields (a reschedule). */
		if (saw & SAW_WARNING) {
			cur->t.yield_due = YIELD_DUE_VP;
			STAT(p, warn_deferred);
		} else if (!cur->t.yield_due)
			cur->t.yield_due = YIELD_DUE_THREAD;
		saw = 0;
		v->slice_from = 0;       /* (its yield there sets the next slice) */
	}
	/* A signal handler waits for cur (ulib/libc/signal.c's post interrupted
	   it): switch it out, and its resume (resume_full) runs the handler
	   first. Not inside a spin lock or a wait of the POSIX layer: then at
	   a later upcall or resume. */
	if (__builtin_expect(cur->t.sigpend & SIGPEND_WAITING, 0) && !cur->t.crit && !cur->t.async_hold)
		saw |= SAW_RESCHED;
	if (cur->t.crit)                 /* (a cancel or handler due: at spin_unlock) */
		spin_defer_intr(&cur->t);
	if (!(saw & (SAW_WARNING | SAW_RESCHED))) {
		if (p->on_run)
			p->on_run(v);
		vp_resume(vpp);          /* just news: cur goes on */
	}
	if (saw & SAW_WARNING) {
		/* Hand cur to the other VPs, then give this one up. */
		requeue_cur(v, cur, RQ_WARNED);
		STAT(p, warn_yields);
		sys_yield();
	} else {
		requeue_cur(v, cur, why);
		STAT(p, resched);
	}
	sched_loop(v);
}
