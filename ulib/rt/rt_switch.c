/*
 * The VP runtime (<animart/vprt.h>), part 1: switching threads.
 *
 * A thread leaving its VP never makes itself runnable (or parked, or
 * finished) while it is still on its stack. It records in the VP what
 * should become of it (prev, prev_action), switches to the next thread or
 * to the VP's scheduler loop, and the code that runs next on the VP does
 * it (rt_finish_prev), once the old context is saved: the switch itself
 * calls it on the new stack (lctx_swap_call), or the scheduler loop does.
 * A block that goes straight to another thread does the same in one step:
 * lctx_swap_park commits the park on the new stack (rt_block). So no VP ever waits
 * for another VP to finish a switch (which, if that VP is off its CPU,
 * can take a whole quantum), and a thread that has exited is off its
 * stack before its joiner hears of it (thread_exited).
 *
 * The one exception is the yield fast path (rtpkg.local_yield): it queues
 * the yielding thread itself, with lc.busy set until lctx_swap has left
 * its stack; a VP about to run a busy thread waits for that.
 *
 * Every switch path runs with software interrupts off; the thread that
 * resumes turns them back on (it may be on another VP by then).
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <animart/sys.h>
#include <animart/vprt.h>
#include <animart/clock.h>

/* The yield and hand-off paths are measured in instructions (make bench):
   no frame pointer here, as in any leaf-heavy fast path. */
#pragma GCC optimize("omit-frame-pointer")

enum { ACT_NONE, ACT_YIELD, ACT_PARK, ACT_EXIT };

static inline struct rtpkg *pkg_of(struct thread *t)
{
	return (struct rtpkg *)t->ops;  /* ops is rtpkg's first member */
}

/* The calling VP as a VP of p (the caller is p's thread: it is one). */
static inline struct rtvp *here(void)
{
	return vp_pkg(vp_self());
}

void rt_kick(struct rtvp *v)
{
	syscall2(SYS_vp_signal, v->index, 0);
}

/* Software interrupts are off, so the caller is still on the VP that
   called rt_make_runnable: rt_vp_here(p) is the v it had. */
void rt_wake_idle(struct rtpkg *p, struct rtvp *to)
{
	struct rtvp *w = to && to->idle ? to : 0;
	for (int i = 0, n = p->nvps; !w && i < n; i++)
		if (p->vps[i]->idle)
			w = p->vps[i];
	if (w && w != rt_vp_here(p))
		rt_kick(w);
}

/* Done by the first code that runs on v after a thread left it
   (rt_finish_switch, <animart/vprt.h>, tests prev inline). */
void rt_finish_prev(struct rtvp *v)
{
	struct uthread *p = v->prev;
	v->prev = 0;
	switch (v->prev_action) {
	case ACT_YIELD:
		rt_make_runnable(v->pkg, v, p, RQ_YIELD);
		break;
	case ACT_PARK:
		/* The interface's rule: commit only once its context is saved. */
		if (!thread_park_commit(&p->t))
			rt_make_runnable(v->pkg, v, p, RQ_YIELD);   /* a permit came first */
		break;
	case ACT_EXIT:
		thread_exited(&p->t);   /* off its stack: tell the joiner */
		break;
	}
}

/* A permit came before lctx_swap_park's commit (the commit failed): the
   thread was saved but is not parked, so it is runnable again. Runs on
   the next thread's stack, software interrupts off. */
_Static_assert(offsetof(struct uthread, lc) - offsetof(struct uthread, t.park) == 0x60,
	       "ctx.S: PARK_BELOW_LC");
void rt_park_cancel(struct lctx *lc);
void rt_park_cancel(struct lctx *lc)
{
	struct uthread *t = (struct uthread *)((char *)lc - offsetof(struct uthread, lc));
	__atomic_store_n(&t->t.park, PARK_RUN, __ATOMIC_RELEASE);   /* consume the permit */
	rt_make_runnable(pkg_of(&t->t), here(), t, RQ_YIELD);
}

/* lctx_*_call's callback: rt_finish_prev itself (its argument a VP). */
#define finish_cb ((void (*)(void *))rt_finish_prev)

/* resume_full with a signal handler waiting for t (sigpend, set by
   ulib/libc/signal.c, which also had t's VP interrupted): unless t holds a spin
   lock or is inside one of the POSIX layer's waits (async_hold), run the
   handlers first, as t, enabled, then resume the interrupted context: a
   signal frame, below the interrupted one on t's own stack, holds a copy
   of it (an upcall during the handlers may save t again into ctx). */
static __attribute__((noinline, noreturn)) void resume_signal(struct uthread *t)
{
	if (!thread_signal_hook || t->t.crit || t->t.async_hold)
		vp_switch(vp_self(), &t->ctx, t->fpu);   /* later: the flag stays */
	struct {
		struct uctx ctx;
		uint8_t fpu[FPU_IMAGE];
	} f;
	f.ctx = t->ctx;
	memcpy(f.fpu, t->fpu, sizeof f.fpu);
	vp_enable_self();
	thread_signal_hook(&t->t);
	vp_switch(vp_disable_self(), &f.ctx, f.fpu);
}

/* Thread t resumes from a full context (ctx, fpu): its lc starts this on
   its own stack, below the interrupted frame. */
static __attribute__((noreturn)) void resume_full(void *arg)
{
	struct uthread *t = arg;
	/* A cancel or a signal's post stores its word, then reads t->vpp to
	   kick t's VP; set_current stored t->vpp before this. The fence
	   orders that store before the loads below: a kick sent to the VP t
	   was taken from (preempted, queued) found t gone, and t, resumed
	   here, must see what it was for, else it computed on for good. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (thread_async_hook) {
		if (t->t.crit)
			spin_defer_intr(&t->t);
		else
			rt_async_redirect(&t->ctx, &t->t);
	}
	if (__builtin_expect((t->t.sigpend & SIGPEND_WAITING) || thread_kern_sigs, 0))
		resume_signal(t);        /* (kern: EV_PSIG came while no thread ran) */
	vp_switch(vp_self(), &t->ctx, t->fpu);  /* enables in its window */
}

/* t's context was saved in ctx and fpu (by an upcall): make every resume
   of t go through lc, as for any other thread. lc starts below the
   interrupted frame on whatever stack t was on: its own, or one the
   program switched it to (a coroutine's, <ucontext.h>), as Linux puts a
   signal frame on the current stack. Only a thread at the very bottom of
   its own stack is stopped here, with a message: it has overflowed. */
void rt_make_full(struct uthread *t)
{
	uint64_t top = t->ctx.rsp - 128, base = (uint64_t)t->stack;   /* 128: red zone */
	if (t->ctx.rsp >= base && t->ctx.rsp <= base + STACK_BYTES(t->stack_size) && top < base + 512) {
		printf("%s: thread %lu: stack pointer %#lx: stack overflow [%p, +%lu)\n",
		       t->t.ops->name, t->t.id, t->ctx.rsp, t->stack, STACK_BYTES(t->stack_size));
		exit(71);
	}
	lctx_make(&t->lc, (void *)top, 0, resume_full, t);
}

/* t was queued by a yield still leaving t's stack on another VP (which
   the kernel may have preempted): wait, giving up the processor now and
   then, as spin_wait_while does. */
static __attribute__((noinline)) void wait_not_busy(struct uthread *t)
{
	for (int i = 1; rt_busy(t); i++)
		if (i % 100)
			__asm__ volatile("pause");
		else
			sys_yield();
}

/* Make t v's running thread, in place of the one there (0: the
   scheduler loop's). Two rare cases, tested at once (one load, an `or`
   with the flag in memory, one branch, on every switch to a thread):
   t is still leaving its stack on another VP (wait for it), and thread
   CPU clocks are on (charge the thread leaving v, read from
   current_thread here, so the switch paths pass nothing more). Tested
   apart, the flag cost create+join 4 instructions and a hand-off 2. */
static __attribute__((noinline)) void set_current_slow(struct rtvp *v, struct uthread *t)
{
	if (rt_busy(t))
		wait_not_busy(t);
	if (RT_CPUTIME_ON())
		rt_cpu_charge((struct uthread *)v->vpp->current_thread, t);
}

/* Either rare case: thread_switch_rare is rt_cputime_on's flag and
   thread_async_used's (rt_block's look after its switch) in one. A plain
   read of it, as RT_CPUTIME_ON's (an atomic load would not fold into the
   `or`): it only ever goes 0 -> 1, and a VP that reads 0 late starts
   charging at its next switch (rt_cputime). */
static inline __attribute__((always_inline)) int switch_rare(struct uthread *t)
{
	return __builtin_expect(rt_busy(t) | thread_switch_rare, 0);
}

static inline __attribute__((always_inline)) void set_current_now(struct rtvp *v, struct uthread *t)
{
	t->t.vpp = v->vpp;
	v->vpp->current_thread = (uint64_t)&t->t;
}

static inline __attribute__((always_inline)) void set_current(struct rtvp *v, struct uthread *t)
{
	if (switch_rare(t))
		set_current_slow(v, t);
	set_current_now(v, t);
}

/* Run t on v from the scheduler loop (never returns). */
void rt_run_thread(struct rtvp *v, struct uthread *t)
{
	/* A slice's end turned a thread out and the pick found no other:
	   nobody waits, so no slice (the kernel timer's fire finds none).
	   (A thread made runnable here since then cleared slice_from:
	   rt_make_runnable.) A slice that ended and turned nobody out (it
	   ended between threads, here, or with the thread it ran for
	   blocked) left none for t, while others may wait: a fresh one (at
	   worst one turn more, if t is alone). Else, with two threads
	   computing on two VPs, a sleeper woken there was queued behind one
	   that then ran with no slice, as did the other (slicesleep, 2 CPUs). */
	if (__builtin_expect(v->slice_from != 0 || v->slice_ended, 0)) {
		if (v->slice_from == t)
			v->slice_at = 0;
		else if (v->slice_ended && !v->slice_at && v->pkg->slice_ns)
			rt_slice_start(v);
		v->slice_from = 0;
		v->slice_ended = 0;
	}
	set_current(v, t);
	lctx_jump_fn(&t->lc);           /* t enables once it is back */
}

/* The calling thread leaves its VP for `next` (0: the scheduler loop);
   `act` says what becomes of it. Returns when it runs again. */
static void switch_away(struct rtvp *v, struct uthread *self, struct uthread *next, int act)
{
	v->prev = self;
	v->prev_action = act;
	if (!next) {
		rt_cpu_switch(self, 0);
		v->vpp->current_thread = 0;
		rt_sched_enter(v, act == ACT_EXIT ? 0 : &self->lc);
	} else {
		/* next finishes our switch before it resumes (lctx_*_call) */
		set_current(v, next);
		if (act == ACT_EXIT)
			lctx_jump_call(&next->lc, 0, finish_cb, v);
		lctx_swap_call(&self->lc, &next->lc, finish_cb, v);
	}
	vp_enable_self();               /* back, maybe on another VP */
}

/* Switch from self to another runnable thread of v's package, if there
   is one (software interrupts off; on again at return): 1 once self runs
   again, 0 at once if there was none. */
static inline __attribute__((always_inline)) int yield_pick(struct rtvp *v, struct uthread *self)
{
	struct uthread *next = v->pkg->pick(v, self);
	if (!next) {
		vp_enable(v->vpp);      /* nobody else to run */
		return 0;
	}
	switch_away(v, self, next, ACT_YIELD);
	return 1;
}

static __attribute__((noinline)) void yield_slow(struct rtvp *v, struct uthread *self)
{
	struct rtpkg *p = v->pkg;
	struct uthread *next;
	if (p->yield_swap) {
		self->lc.busy = 1;
		if ((next = p->yield_swap(v, self))) {
			/* self waits, queued by yield_swap, not enqueue: a slice
			   for next, as enqueue sets one (else a thread that
			   computes after a yield, a spin lock's deferred one at a
			   slice's end among them, kept prio's VP from the
			   yielder for good: slicewait's prio-1, 1 boot in 10) */
			if (__builtin_expect(!v->slice_at, 0) && p->slice_ns)
				rt_slice_start(v);
			set_current(v, next);
			lctx_swap_fn(&self->lc, &next->lc);   /* clears self's busy */
		} else
			self->lc.busy = 0;
		vp_enable_self();
		return;
	}
	yield_pick(v, self);
}

/* Swap self with the head of v's local queue (local_yield); 0 if the
   queue is empty or its lock is taken. */
static inline struct uthread *lq_rotate(struct rtvp *v, struct uthread *self)
{
	if (!spin_trylock(&v->lq_lock))
		return 0;
	struct uthread *tail = v->lq_tail, *next = 0;
	if (tail) {
		next = tail->next;      /* the head */
		self->lc.busy = 1;      /* until lctx_swap is off our stack */
		if (next == tail)       /* it was alone: now we are */
			self->next = self;
		else {
			self->next = next->next;
			tail->next = self;
		}
		v->lq_tail = self;
	}
	spin_unlock_by(&v->lq_lock, 0);
	return next;
}

/* lctx_swap_fn(from, to) as a call from inline assembly, clobbering all
   a call may: the same switch without the stack alignment (two
   instructions) that a C call needs here. lctx_swap does not care how its
   caller's stack is aligned (it leaves it); nothing here is built with a
   red zone (-mno-red-zone), so the pushed return address hides nothing. */
static inline __attribute__((always_inline)) void swap_asm(struct lctx *from, const struct lctx *to)
{
	register struct lctx *di __asm__("rdi") = from;
	register const struct lctx *si __asm__("rsi") = to;
	__asm__ volatile("call *%2"
			 : "+r"(di), "+r"(si)
			 : "m"(lctx_swap_fn)
			 : "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "memory", "cc",
			   "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
			   "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
			   "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)",
			   "mm0", "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7");
}

/* The fast path's switch with thread CPU clocks on: out of line, so
   that the fast path keeps nothing live across a call. */
static __attribute__((noinline)) void yield_charged(struct vp_page *vpp, struct uthread *self,
						    struct uthread *next)
{
	rt_cpu_charge(self, next);
	next->t.vpp = vpp;
	vpp->current_thread = (uint64_t)&next->t;
	swap_asm(&self->lc, &next->lc);           /* clears self's busy */
	vp_enable_self();
}

/* The fast path keeps nothing live across the switch (it reloads the VP
   from %gs) and does not wait for next's busy: the head of our own local
   queue is never busy (see rtpkg.local_yield). */
void rt_yield(struct thread *self_t)
{
	struct uthread *self = (struct uthread *)self_t, *next;
	struct vp_page *vpp = vp_disable_self();
	struct rtvp *v = vp_pkg(vpp);
	if (!(next = lq_rotate(v, self)))   /* (empty unless local_yield) */
		return yield_slow(v, self);
	if (RT_CPUTIME_ON())
		return yield_charged(vpp, self, next);
	next->t.vpp = vpp;
	vpp->current_thread = (uint64_t)&next->t;
	swap_asm(&self->lc, &next->lc);           /* clears self's busy */
	vp_enable_self();                       /* back, maybe on another VP */
}

/* park's switch straight to next, when switch_rare: as set_current's
   slow path, and back (rt_block only) a look for an asynchronous cancel
   that woke us (thread_async_back). Only here: the look after every
   switch cost fifo's create+join and signal-wait 3 instructions each;
   a thread that can be cancelled asynchronously set thread_switch_rare
   (thread_async_use) before its park, so it comes this way. */
static __attribute__((noinline)) void park_rare(struct rtvp *v, struct uthread *self,
						struct uthread *next, int back)
{
	set_current_slow(v, next);
	set_current_now(v, next);
	lctx_swap_park_fn(&self->lc, &next->lc);
	vp_enable_self();               /* back, maybe on another VP */
	if (back)
		thread_async_back(&self->t);
}

/* The park of rt_block and rt_park; back (rt_block only), it looks for
   an asynchronous cancel that woke it (thread_async_back). Inlined into
   both: rt_block, the hot one, pays no test of `back`. */
static inline __attribute__((always_inline)) void park(struct thread *self_t, int back)
{
	struct uthread *self = (struct uthread *)self_t;
	struct rtpkg *p = pkg_of(self_t);
	struct rtvp *v = vp_pkg(vp_disable_self());
	int expect = PARK_PERMIT;       /* woken already: no switch at all */
	if (__atomic_compare_exchange_n(&self->t.park, &expect, PARK_RUN, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		vp_enable(v->vpp);
		return;
	}
	struct uthread *next = p->pick(v, 0);
	if (!next) {
		v->looked = 1;          /* (the scheduler loop need not look at once) */
		switch_away(v, self, 0, ACT_PARK);  /* the scheduler loop commits */
		if (back)
			thread_async_back(self_t);
		return;
	}
	/* Straight to next: the switch itself commits the park on next's
	   stack, once self is saved (lctx_swap_park), as rt_finish_prev
	   would, in one step. */
	if (switch_rare(next))
		return park_rare(v, self, next, back);
	set_current_now(v, next);
	lctx_swap_park_fn(&self->lc, &next->lc);
	vp_enable_self();               /* back, maybe on another VP */
}

void rt_block(struct thread *self_t)
{
	park(self_t, 1);
}

/* A park inside a longer wait of the package's (a block_until, det=par's
   token wait): no look for an asynchronous cancel here, where the thread
   is still on a timed list or owes its turn; the wait's own caller looks
   once it is done (thread_block_until, par_block). An interrupt taken
   here ran the cancel's exit with the thread still on det's timed list,
   and det never finished test_cancelorder. */
void rt_park(struct thread *self_t)
{
	park(self_t, 0);
}

/* self's joiner, if it is a thread of p parked in thread_join: claimed
   (PARKED -> RUN, as thread_unblock would), so nobody else queues it. */
static struct uthread *claim_joiner(struct rtpkg *p, struct uthread *self)
{
	uint64_t j = __atomic_load_n(&self->t.join, __ATOMIC_ACQUIRE);
	struct thread *jt = (struct thread *)j;
	int expect = PARK_PARKED;
	if (!j || j == JOIN_DONE || jt->ops != &p->ops ||
	    !__atomic_compare_exchange_n(&jt->park, &expect, PARK_RUN, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return 0;
	return (struct uthread *)jt;
}

/* When nothing else is runnable here, the VP goes straight to a parked
   joiner of the same package: no trip through the scheduler loop and the
   queues for the commonest end of a thread. */
__attribute__((noreturn)) void rt_exit(struct thread *self_t)
{
	struct uthread *self = (struct uthread *)self_t, *next;
	struct rtpkg *p = pkg_of(self_t);
	struct rtvp *v = vp_pkg(vp_disable_self());
	if (!(next = p->pick(v, 0)) && (next = claim_joiner(p, self))) {
		/* The joiner is ours alone to run (claimed), and it runs only
		   after the jump: it cannot free self while we are on self's
		   stack, so JOIN_DONE may go first. */
		__atomic_store_n(&self->t.join, JOIN_DONE, __ATOMIC_RELEASE);
		set_current(v, next);
		lctx_jump_fn(&next->lc);
	}
	switch_away(v, self, next, ACT_EXIT);
	abort();
}

/* A yield of self (a classic VP's timed waiter, tw_due set) to a thread
   worth the VP: any but a timed waiter whose deadline is ahead and that
   has no permit. Such waiters picked on the way are queued again behind.
   1 once self runs again; 0 if there was none, *until lowered to the
   earliest of those waiters' deadlines. At most TW_LOOK are set aside:
   past that, the next is taken for work (as every one was before). */
#define TW_LOOK 16
static int yield_worth(struct uthread *self, uint64_t *until)
{
	struct rtvp *v = vp_pkg(vp_disable_self());
	struct rtpkg *p = v->pkg;
	struct uthread *aside[TW_LOOK], *next = p->pick(v, self);
	int n = 0;
	uint64_t now = now_ns();
	for (; next && n < TW_LOOK; next = p->pick(v, 0)) {
		uint64_t d = next->tw_due;
		if (!d || d <= now || __atomic_load_n(&next->t.park, __ATOMIC_ACQUIRE) == PARK_PERMIT)
			break;
		if (d < *until)
			*until = d;
		aside[n++] = next;
	}
	for (int i = 0; i < n; i++)
		rt_make_runnable(p, v, aside[i], RQ_YIELD);
	if (!next) {
		vp_enable(v->vpp);
		return 0;
	}
	switch_away(v, self, next, ACT_YIELD);
	self->t.nvcsw++;
	return 1;
}

/* Timed blocking. With upcalls, the thread blocks at user level and
   waits in its VP's timer queue (rt_tq.c). A classic VP would sleep
   whole, and the threads queued behind it with it (with one VP, the very
   thread that would wake it): there the thread waits at user level,
   yielding until an unblock leaves a permit or the deadline passes, and
   sleeps on its park word only while nothing else is runnable here.
   Other timed waiters queued are not work: two of them (a sleeper and
   alarm's or setitimer's timer thread) yielded to each other for good,
   and a program that only slept used a whole processor. So the thread
   sleeps then too, until its own deadline or theirs, whichever is first
   (at the earlier one it looks again, and yields to the waiter due). */
int rt_block_until(struct thread *self, uint64_t deadline)
{
	if (!pkg_of(self)->classic)
		return rt_tq_wait((struct uthread *)self, deadline);
	struct uthread *u = (struct uthread *)self;
	for (;;) {
		int expect = PARK_PERMIT;
		if (__atomic_compare_exchange_n(&self->park, &expect, PARK_RUN, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
		uint64_t due = dl_boot(deadline);   /* (the clock's offset of the moment) */
		if (now_ns() >= due) {
			u->tw_due = 0;
			return -ETIMEDOUT;
		}
		/* With nobody else to run here the VP may sleep whole: no
		   thread waits behind it (a lone sleeper spun for its whole
		   sleep). Threads queued later go to the package's idle VPs. */
		rt_due_arm(deadline);    /* a turn at the deadline (rt_due.c) */
		u->tw_due = due;
		uint64_t until = due;
		if (yield_worth(u, &until))
			continue;
		u->tw_due = 0;
		if (until == due)
			return thread_park_timed(self, deadline);
		if (thread_park_timed(self, until) == 0)
			return 0;        /* unblocked */
	}
	u->tw_due = 0;
	return 0;
}

/* Another runnable thread of self's package on its VP, if any (the
   policy's pick, as a yield): 1 once self runs again, 0 if none. */
int rt_yield_other(struct thread *self)
{
	if (!yield_pick(vp_pkg(vp_disable_self()), (struct uthread *)self))
		return 0;
	self->nvcsw++;
	return 1;
}

/* From any thread of any package, or an upcall handler. */
void rt_unblock(struct thread *t)
{
	struct rtpkg *p = pkg_of(t);
	int was;
	struct rtvp *v = vp_pkg(vp_disable_save_self(&was));
	rt_make_runnable(p, v && v->pkg == p ? v : 0, (struct uthread *)t, RQ_UNBLOCK);
	if (!was)
		vp_enable_self();       /* (disabled: still on the VP it disabled) */
}

void rt_setprio(struct thread *t, int prio)
{
	struct rtpkg *p = pkg_of(t);
	int was;
	struct vp_page *vpp = vp_disable_save_self(&was);   /* the queues' locks */
	if (prio > THREAD_PRIO_MIN)
		rt_band_need(p);
	if (!p->reprio)
		t->prio = prio;
	else
		p->reprio((struct uthread *)t, prio);
	if (!was)
		vp_enable_self();
	(void)vpp;
}

/* An upcall on t's VP (EV_SIGNAL), whose handler asks thread_async_hook
   about the thread it interrupts. Classic VPs take no upcalls: the same
   event interrupts them (ulib/rt/intr.c), for signals only.
   Not when t last ran on the caller's own VP and is not the caller: t
   does not run (we do), and the upcall would find us, not t. t meets
   what it was interrupted for where it resumes (resume_full, a wait's
   end, thread_async_look). Such a kick only cost a system call, and on
   a classic VP its interrupt gave us the turn of a timed wait already
   over (rt_due.c): t ran its cancel's cleanup before pthread_cancel
   returned (naive at -smp 1: 31-42 of 100 rounds, cancelorder). */
void rt_interrupt(struct thread *t)
{
	struct rtpkg *p = pkg_of(t);
	struct vp_page *vpp = __atomic_load_n(&t->vpp, __ATOMIC_ACQUIRE);
	struct rtvp *v = rt_vp_of(p, vpp);
	if (v && (vpp != vp_self() || t == thread_self()))
		rt_kick(v);
}

/* Descriptors go back to the package's pool, never to malloc: a late
   thread_unblock() of a thread that has exited (sync.c allows it) must
   find a descriptor, and at worst wakes its next user spuriously, which
   waiters tolerate. thread_exited() came after the thread left its stack:
   nothing to wait for. */
void rt_free(struct thread *t)
{
	struct rtpkg *p = pkg_of(t);
	struct uthread *u = (struct uthread *)t, *head = p->pool;
	/* Pushes need no lock: pops hold pool_lock, so between a pop's read
	   of the head and its compare-and-swap the head can only have grown,
	   and the swap fails (no ABA). */
	do
		u->next = head;
	while (!__atomic_compare_exchange_n(&p->pool, &head, u, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/*
 * Thread CPU clocks (docs/libc.md). A thread's CPU time is the CPU time
 * of the VPs that ran it while they ran it: the kernel keeps each VP's
 * (its pseudo-register page), and every switch on a VP charges the thread
 * leaving it the VP's time since that thread arrived (rt_cpu_charge).
 * The VP's time stops while the kernel has it off a CPU, so a thread
 * whose VP was preempted is not charged for the wait; the upcall handler
 * and scheduler loop between two threads are charged to neither.
 *
 * Kept only once a program asks for a thread CPU clock (rt_cputime turns
 * rt_cputime_on on, for good): until then the yield's fast path pays a
 * compare and a branch, and the other switch paths nothing (set_current
 * tests the flag with the busy flag it tested anyway). A thread's clock so counts from the later of its
 * first run and that first request: the caller is stamped at once, a
 * thread running on another VP then from its next switch to a VP.
 */
int rt_cputime_on;

/* An update of t's fields, for readers on other VPs: the stores are
   ordered (x86) and the compiler keeps them so (volatile, fences). */
static inline void cpu_seq_bump(struct uthread *t)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	t->cpu_seq++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/* On the calling VP, software interrupts off: `out` leaves it, `in`
   arrives (either may be 0). */
void rt_cpu_charge(struct uthread *out, struct uthread *in)
{
	uint64_t now = vp_cpu_self_ns();
	if (out) {
		cpu_seq_bump(out);
		if (out->cpu_owner != out->t.id) {   /* an earlier thread's figures */
			out->cpu_ns = 0;
			out->cpu_owner = out->t.id;
		} else if (out->cpu_in)
			out->cpu_ns += now - out->cpu_in;
		out->cpu_in = 0;
		cpu_seq_bump(out);
	}
	if (in) {
		cpu_seq_bump(in);
		if (in->cpu_owner != in->t.id) {
			in->cpu_ns = 0;
			in->cpu_owner = in->t.id;
		}
		in->cpu_pp = vp_pseudo();
		in->cpu_in = now;
		cpu_seq_bump(in);
	}
}

/* The CPU time of t's stint on pp so far, or -1 if it cannot be read
   now (pp's turn is ending: the kernel clears oncpu before it adds the
   turn to run_ns, and the sum reads short for a moment). */
static int64_t stint_ns(const struct pseudo_page *pp, uint64_t in)
{
	uint64_t d = __atomic_load_n(&pp->dispatches, __ATOMIC_ACQUIRE);
	uint64_t c = vp_cpu_ns(pp, now_ns());
	if (d != __atomic_load_n(&pp->dispatches, __ATOMIC_ACQUIRE) || c < in)
		return -1;
	return (int64_t)(c - in);
}

/* t's CPU time: t the caller (exact) or another thread of the program
   (its descriptor may be stale: the caller checks t's id afterwards,
   ulib/rt/cpuclock.c). The first call turns the accounting on. */
int64_t rt_cputime(struct thread *tt)
{
	struct uthread *t = (struct uthread *)tt;
	if (!__atomic_load_n(&rt_cputime_on, __ATOMIC_RELAXED)) {
		__atomic_store_n(&rt_cputime_on, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&thread_switch_rare, 1, __ATOMIC_SEQ_CST);
	}
	if (tt == thread_self()) {
		/* Nobody else writes our fields while we run; with software
		   interrupts off no upcall moves us between the reads. */
		int was;
		struct vp_page *vpp = vp_disable_save_self(&was);
		if (!t->cpu_in || t->cpu_owner != tt->id)   /* the first request: count from here */
			rt_cpu_charge(0, t);
		int64_t r = (int64_t)(t->cpu_ns + vp_cpu_self_ns() - t->cpu_in);
		vp_restore(vpp, was);
		return r;
	}
	for (int i = 1;; i++) {
		uint32_t s = __atomic_load_n(&t->cpu_seq, __ATOMIC_ACQUIRE);
		if (!(s & 1)) {
			uint64_t n = t->cpu_ns, in = t->cpu_in, own = t->cpu_owner;
			const struct pseudo_page *pp = t->cpu_pp;
			if (own != tt->id)       /* not charged since it started */
				n = in = 0;
			int64_t live = in && pp ? stint_ns(pp, in) : 0;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (live >= 0 && __atomic_load_n(&t->cpu_seq, __ATOMIC_ACQUIRE) == s)
				return (int64_t)n + live;
			/* (a stint whose VP the kernel holds mid-switch for
			   long: its finished stints, rather than wait on) */
			if (i > 10000 && live < 0 && __atomic_load_n(&t->cpu_seq, __ATOMIC_ACQUIRE) == s)
				return (int64_t)n;
		}
		if (i % 64)
			__asm__ volatile("pause");
		else
			sys_yield();         /* its VP may be off a CPU mid-switch */
	}
}
