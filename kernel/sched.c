/*
 * The VP scheduler: coarse-grained round robin over per-CPU run queues.
 *
 * Each CPU runs scheduler() on its own boot stack and switches into one VP
 * at a time (xv6's model). The kernel is not preemptible — it runs with
 * interrupts off — so a VP is preempted only on its way back to user mode,
 * when its quantum is over. The timer is one-shot, armed for the earliest
 * of: the running VP's quantum end, its preemption warning, and this
 * CPU's earliest blocking-operation deadline (kop.c).
 *
 * Fairness is among spaces, not VPs: each space is charged the CPU time
 * its VPs use (vruntime), and a CPU runs, from its queue, the first VP of
 * the space that has used least. So a space with 64 VPs gets no more of a
 * contended CPU than a space with one; VPs of one space take turns in
 * FIFO order. A space that slept long is not owed the time it missed: its
 * vruntime is raised to near the smallest current one when it wakes.
 *
 * The two-minute warning: a VP that sets warn_ns in its VP page gets
 * EV_WARNING that long (capped at half a quantum) before its quantum ends,
 * if another VP is ready for its CPU then (else none: warn.c). If it
 * yields before the deadline it has honored the warning and is not
 * charged with a preemption; otherwise it is preempted at the deadline,
 * put on probation (warn.c), and, if it asked (want_preempted), gets
 * EV_PREEMPTED when it next runs.
 *
 * A VP may be enqueued (woken) on one CPU while its old CPU is still
 * switching away from its stack; vp->on_cpu makes the new CPU wait until
 * the old one is done with it.
 */
#include "kernel.h"

uint64_t quantum_ns = 10 * 1000000UL;
uint64_t tick_ns;

static void fxsave(uint8_t *a) { __asm__ volatile("fxsave64 (%0)" : : "r"(a) : "memory"); }
static void fxrstor(uint8_t *a) { __asm__ volatile("fxrstor64 (%0)" : : "r"(a) : "memory"); }

void sched_init_cpu(struct cpu *c)
{
	spin_init(&c->rq_lock, "runq");
	c->next_timer = ~0UL;
}


/* Start a quantum for vp on c, publishing it in the pseudo-register page. */
static void quantum_begin(struct cpu *c, struct vp *vp, uint64_t now)
{
	c->quantum_end = now + quantum_ns;
	c->need_resched = vp->space->stopped;   /* stopped: it parks before user mode (pstop.c) */
	c->warned = WARN_NONE;
	c->warn_at = 0;
	warn_arm(c, vp);             /* its warning time, or a quantum of probation */
	struct pseudo_page *pp = vp->pp;
	pp->cpu = c->id;
	pp->ncpu = ncpu;
	pp->quantum_start = now;
	pp->quantum_end = c->quantum_end;
	pp->preempt_deadline = 0;
	pp->rt_off = __atomic_load_n(&rt_off, __ATOMIC_RELAXED);   /* rtclock.c */
	sched_arm_timer_at(now);
}

static volatile uint64_t min_vruntime;   /* roughly the least vruntime in play */

/* vp to the tail of c's queue (rq_lock held; the caller counts it). */
static inline void rq_append(struct cpu *c, struct vp *vp)
{
	vp->queued = 1;
	vp->rq_next = 0;
	if (c->rq_tail)
		c->rq_tail->rq_next = vp;
	else
		c->rq_head = vp;
	c->rq_tail = vp;
}

/* Take the first VP of the least-served space from c's queue. */
static struct vp *rq_pop(struct cpu *c)
{
	spin_lock(&c->rq_lock);
	struct vp **best = 0;
	for (struct vp **pp = &c->rq_head; *pp; pp = &(*pp)->rq_next)
		if (!best || (*pp)->space->vruntime < (*best)->space->vruntime)
			best = pp;
	struct vp *vp = best ? *best : 0;
	if (vp) {
		vp->queued = 0;
		*best = vp->rq_next;
		if (c->rq_tail == vp) {
			c->rq_tail = 0;
			for (struct vp *v = c->rq_head; v; v = v->rq_next)
				c->rq_tail = v;
		}
		c->rq_len--;
		if (vp->space->vruntime > min_vruntime)
			min_vruntime = vp->space->vruntime;
	}
	spin_unlock(&c->rq_lock);
	return vp;
}

/* Take work from the CPU with the longest queue. (Also from one that was
   kicked awake to run it: under a loaded host an emulated CPU can take
   milliseconds to leave hlt, and whichever CPU gets there first runs it.) */
static struct vp *steal(struct cpu *me)
{
	struct cpu *victim = 0;
	for (int i = 0; i < ncpu; i++)
		if (&cpus[i] != me && cpus[i].rq_len > 0 && (!victim || cpus[i].rq_len > victim->rq_len))
			victim = &cpus[i];
	return victim ? rq_pop(victim) : 0;
}

static struct cpu *find_idle(void)
{
	for (int i = 0; i < ncpu; i++)
		if (cpus[i].idle)
			return &cpus[i];
	return 0;
}

/* A space back from a long wait starts one quantum behind the pack,
   not arbitrarily far behind (it would monopolize the CPUs). */
static inline void vruntime_floor(struct space *sp)
{
	uint64_t floor = min_vruntime > quantum_ns ? min_vruntime - quantum_ns : 0;
	if (sp->vruntime < floor)
		sp->vruntime = floor;
}

void sched_enqueue(struct vp *vp)
{
	struct cpu *c = vp->cpu;
	if (!c) {                         /* new VP: an idle CPU, or the shortest queue */
		c = find_idle();
		for (int i = 0; !c && i < ncpu; i++)
			if (!c || cpus[i].rq_len < c->rq_len)
				c = &cpus[i];
		if (!c)
			c = mycpu();
		vp->cpu = c;
	}
	vruntime_floor(vp->space);
	spin_lock(&c->rq_lock);
	/* A VP queued twice would run again after it was freed. */
	if (vp->queued || vp->magic != VP_MAGIC)
		panic("sched_enqueue: vp %lu (space %d, state %d) %s", vp->id, vp->space->id, vp->state,
		      vp->queued ? "already queued" : "freed");
	rq_append(c, vp);
	c->rq_len++;
	spin_unlock(&c->rq_lock);
	shake();                          /* queued: another CPU may take it now */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* Wake the target if it sleeps, else let an idle CPU steal the work. */
	struct cpu *kick = c->idle ? c : find_idle();
	if (kick && kick != mycpu()) {
		trace(TR_IPI, 0, (uint32_t)kick->id);
		lapic_ipi(kick->apic_id, T_RESCHED);
	}
}

/* Load sp's page tables on this CPU (0: the kernel's), keeping a reference
   so the tables cannot be freed while any CPU might still walk them. */
static void switch_space(struct cpu *c, struct space *sp)
{
	if (c->cr3_space == sp)
		return;
	if (sp)
		space_get(sp);
	struct space *old = c->cr3_space;
	c->cr3_space = sp;           /* before the load: see tlb_shootdown */
	lcr3(sp ? sp->cr3 : kernel_cr3);
	vstat(VS_CR3_SPACE, 1);
	if (old)
		space_put(old);
}

static void idle(struct cpu *c)
{
	switch_space(c, 0);
	__atomic_store_n(&c->idle, 1, __ATOMIC_SEQ_CST);
	if (!idle_poll(c)) {
		sched_arm_timer();
		uint64_t t0 = now_ns();
		trace(TR_IDLE, 0, 0);
		__asm__ volatile("sti; hlt; cli" ::: "memory");
		trace(TR_RESUME, 0, 0);
		c->idle_ns += now_ns() - t0;
	}
	__atomic_store_n(&c->idle, 0, __ATOMIC_SEQ_CST);
}

/* pp's turn_seq + 1, ordered with the stores around it (x86 keeps
   stores in order; the fences keep the compiler from moving them). */
static inline void turn_seq_bump(struct pseudo_page *pp)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&pp->turn_seq, pp->turn_seq + 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void scheduler(void)
{
	struct cpu *c = mycpu();
	uint64_t last = 0;   /* when the last VP stopped, if no idling came since */
	for (;;) {
		struct vp *vp = c->handoff;  /* a directed yield's (vp_yield_to) */
		c->handoff = 0;
		if (!vp)
			vp = rq_pop(c);
		if (!vp)
			vp = steal(c);
		if (!vp) {
			idle(c);
			last = 0;
			continue;
		}
		if (vp->magic != VP_MAGIC)
			panic("scheduler: a freed VP was on a run queue");
		while (__atomic_load_n(&vp->on_cpu, __ATOMIC_ACQUIRE))
			pause();
		vp->on_cpu = 1;
		vp->cpu = c;
		/* (a fence, for free: the state before quantum_begin reads
		   `stopped`, as pstop.c's kick sets that before it reads states) */
		__atomic_exchange_n(&vp->state, VP_RUNNING, __ATOMIC_SEQ_CST);
		vp->switches++;
		vstat(VS_DISPATCH, 1);
		vstat(VS_DISPATCH_VIEW, vp->view != 0);
		c->vp = vp;
		switch_space(c, vp->space);
		view_load(vp);           /* (its own tables: loaded only while it runs) */
		c->kstack_top = c->tss.rsp0 = (uint64_t)vp->kstack + KSTACK_SIZE;
		/* user %gs: this VP's pseudo page, from its index (never a
		   value read back from a page user code can reach) */
		wrmsr(MSR_KERNEL_GS, vp->gs_base);
		wrmsr(MSR_FS_BASE, vp->fs_base);
		fxrstor(vp->fpu);
		/* (the few hundred instructions between two VPs are charged to
		   the next: one clock read less per switch) */
		uint64_t t0 = last ? last : now_ns();
		vp->pp->run_start = t0;      /* before dispatches and oncpu: readers check those */
		vp->pp->dispatches++;
		vp->pp->oncpu = 1;
		quantum_begin(c, vp, t0);
		trace(TR_DISPATCH, vp, 0);
		swtch(&c->sched_ctx, vp->ctx);
		/* The turn ends: until run_ns has it, readers on other CPUs
		   read again (turn_seq odd), or they missed it (a process CPU
		   clock short by a turn: ptest's threadcpu, progs/posix/cpuread) */
		turn_seq_bump(vp->pp);
		vp->pp->oncpu = 0;
		trace(TR_STOP, vp, (uint32_t)vp->state);
		/* vp gave up the CPU; its state says why. */
		vp->fs_base = rdmsr(MSR_FS_BASE);   /* the kernel left FS alone */
		/* Hardware faults a non-canonical wrfsbase in user mode, but
		   QEMU's TCG takes it; loaded back with wrmsr it would be a #GP
		   in ring 0 on a CPU that checks. Never load it: the VP's space
		   dies at its next return to user (trap.c). */
		if (unlikely((uint64_t)((int64_t)(vp->fs_base << 16) >> 16) != vp->fs_base)) {
			vp->bad_fs = vp->fs_base;
			vp->fs_base = 0;
		}
		last = now_ns();
		uint64_t ran = last - t0;
		vp->run_ns += ran;
		vp->pp->run_ns = vp->run_ns;
		turn_seq_bump(vp->pp);
		__atomic_fetch_add(&vp->space->vruntime, ran, __ATOMIC_RELAXED);
		/* Read the state before letting go: once on_cpu is 0 a VP that
		   is not a zombie may run on another CPU, exit there and be freed
		   by that CPU, and a state read here after that found a zombie and
		   freed it again (a kernel stack freed twice, seen in CI). A
		   zombie stays a zombie, and nobody else frees it. */
		int zombie = vp->state == VP_ZOMBIE;
		if (unlikely(vp->stopkick))
			pstop_left(vp);  /* off its CPU after a stop's kick */
		view_unload(c);          /* before another CPU may run (or free) vp */
		c->vp = 0;
		__atomic_store_n(&vp->on_cpu, 0, __ATOMIC_RELEASE);
		shake();                 /* another CPU may run vp now */
		if (zombie)
			vp_free(vp);
	}
}

/* Leave the CPU; the caller has already set vp->state. */
void sched(void)
{
	struct vp *vp = myvp();
	fxsave(vp->fpu);
	swtch(&vp->ctx, mycpu()->sched_ctx);
}

/*
 * Before a VP leaves c at a yield or a quantum's end, take one waiting VP
 * from the CPU with the longest queue if more wait there than here. A CPU
 * steals only when it has nothing at all to run, so without this the
 * queues drift apart and stay apart: a VP alone on its CPU kept it for
 * good (its yields found nobody waiting) while seven others shared the
 * other CPU, 35x less each. Pulling at every rotation keeps the queues
 * within one of each other, and the VPs circulate among the CPUs.
 * Returns whether it took one.
 */
static int pull(struct cpu *c, struct cpu *busiest)
{
	/* Its tail: the VP that arrived last waits no longer behind ours.
	   (Its head has waited longest: moving it would restart its wait.) */
	spin_lock(&busiest->rq_lock);
	struct vp *v = busiest->rq_tail, **pp = &busiest->rq_head;
	if (v && busiest->rq_len > c->rq_len) {
		while (*pp != v)
			pp = &(*pp)->rq_next;
		*pp = 0;
		busiest->rq_tail = pp == &busiest->rq_head ? 0
				   : (struct vp *)((char *)pp - __builtin_offsetof(struct vp, rq_next));
		busiest->rq_len--;
		v->queued = 0;
	} else
		v = 0;
	spin_unlock(&busiest->rq_lock);
	shake();                          /* v on no queue, RUNNABLE */
	if (v) {
		v->cpu = c;
		sched_enqueue(v);
	}
	return v != 0;
}

/*
 * Where a VP that leaves its CPU waits next: the shortest queue, ties
 * broken at random. The wait is then the same for every VP whichever
 * CPU it ran on, and VPs keep mixing across CPUs, so a CPU that runs
 * slower (an emulated one its host descheduled, or one busy with
 * interrupts) costs every VP a little rather than some VPs a lot.
 *
 * The queues are offered one at a time: the shortest so far is kept,
 * and among k equal ones each is kept with chance 1/k whatever order
 * they come in. The queue a pull just took from is offered a second
 * time, one shorter, and still counts once: if it is now the shortest
 * it restarts the count (its first offer goes with it), and if it ties
 * the shortest its first offer was longer and never counted.
 */
struct pick {
	struct cpu *cpu;
	int len, ties;
};

static void offer(struct cpu *c, struct pick *p, struct cpu *o, int len)
{
	if (!p->cpu || len < p->len) {
		p->cpu = o;
		p->len = len;
		p->ties = 1;
	} else if (len == p->len) {
		c->rand = c->rand * 6364136223846793005UL + 1442695040888963407UL;
		if ((c->rand >> 33) % ++p->ties == 0)
			p->cpu = o;
	}
}

/*
 * A yield's rotation: pull, then choose the queue to wait on. One pass
 * over the other CPUs' queue lengths serves both; the two queues the
 * pull changed are offered (again) with their new lengths afterwards.
 * Returns 0 when nobody waits on c even after the pull: keep running.
 */
static struct cpu *rotate(struct cpu *c)
{
	struct cpu *busiest = 0;
	int blen = 0;
	struct pick to = { 0, 0, 0 };
	for (int i = 0; i < ncpu; i++) {
		struct cpu *o = &cpus[i];
		if (o == c)
			continue;
		int len = READ_ONCE(o->rq_len);
		if (!busiest || len > blen) {
			busiest = o;
			blen = len;
		}
		offer(c, &to, o, len);
	}
	if (busiest && blen > READ_ONCE(c->rq_len) && pull(c, busiest))
		offer(c, &to, busiest, blen - 1);
	int len = READ_ONCE(c->rq_len);
	if (!len)
		return 0;
	offer(c, &to, c, len);
	return to.cpu;
}

void vp_yield(void)
{
	struct cpu *c = mycpu();
	struct vp *vp = c->vp;
	c->need_resched = 0;
	struct cpu *to = rotate(c);
	if (!to) {                      /* nobody waiting here: keep going */
		quantum_begin(c, vp, now_ns());
		return;
	}
	vp->state = VP_RUNNABLE;
	vp->cpu = to;
	sched_enqueue(vp);
	sched();
}

/*
 * A point in a long kernel loop (zeroing a large map's pages) where this
 * CPU catches up: the kernel is not preemptible and runs with interrupts
 * off, so without these one SYS_map of hundreds of MiB held its CPU for
 * all of it (no timers, no preemption, TLB-shootdown IPIs unanswered).
 * Here pending interrupts are taken, and a quantum that is over ends as
 * on the way to user mode (sched_quantum_end: warnings, probation); the
 * VP comes back to the loop later. A preemption warning that fell due in
 * the kernel goes out on the way to user mode with its full period, and
 * meanwhile keeps the timer from asking for a reschedule: it may keep the
 * VP here one quantum more, then the VP yields. The caller holds no spin
 * lock (an interrupt handler may take any of them), its state in locals.
 */
void sched_point(void)
{
	sti();
	__asm__ volatile("nop");         /* (sti takes effect after one instruction) */
	cli();
	struct cpu *c = mycpu();
	if (c->need_resched)
		sched_quantum_end();
	else if (now_ns() >= c->quantum_end + (c->warned == WARN_DUE ? quantum_ns : 0))
		vp_yield();
}

/* A directed yield (SYS_seg_wake's SEGWAKE_YIELD): give this CPU to t,
   if its space is within a quarter quantum of the least-served one
   waiting here, the caller's included (so it runs a little out of turn,
   never far: no pair of spaces handing the CPU back and forth keeps a
   third waiting). t either waits on this CPU's queue (queued), or was
   just woken by the caller and is on no queue yet (vp_claim): then the
   caller places it, and a hand-off skips the enqueue and the unlinking
   (about 80 instructions of each cross-space ping-pong round). One pass
   under the queue lock finds t and the least-served space, takes t off
   and puts the caller on, and the scheduler dispatches t without looking
   again. Else an ordinary yield, t queued first. t is only compared
   until found in the queue. Like SYS_yield, it honors a pending
   preemption warning. */
void vp_yield_to(struct vp *t, int queued)
{
	struct cpu *c = mycpu();
	struct vp *vp = c->vp;
	if (!queued)
		vruntime_floor(t->space);
	if (c->warned == WARN_GIVEN && now_ns() < c->quantum_end)
		warn_honored(vp);
	c->need_resched = 0;
	spin_lock(&c->rq_lock);
	struct vp **pt = 0;
	uint64_t least = vp->space->vruntime;
	for (struct vp *w = c->rq_head, **pp = &c->rq_head; w; pp = &w->rq_next, w = *pp) {
		uint64_t v = w->space->vruntime;
		if (w == t)
			pt = pp;
		if (v < least)
			least = v;
	}
	if ((queued && !pt) || t->space->vruntime > least + quantum_ns / 4) {
		spin_unlock(&c->rq_lock);
		if (!queued)
			sched_enqueue(t);
		vp_yield();
		return;
	}
	if (queued) {
		*pt = t->rq_next;        /* t off (pt is the head or its predecessor's link) */
		if (c->rq_tail == t)
			c->rq_tail = pt == &c->rq_head ? 0 :
				     (struct vp *)((char *)pt - __builtin_offsetof(struct vp, rq_next));
		t->queued = 0;
	} else
		c->rq_len++;             /* the caller on, t was on no queue */
	if (t->space->vruntime > min_vruntime)
		min_vruntime = t->space->vruntime;
	vp->state = VP_RUNNABLE;         /* the caller on, at the tail */
	rq_append(c, vp);                /* (rq_len: one out, one in) */
	c->handoff = t;
	spin_unlock(&c->rq_lock);
	shake();                         /* the caller queued, still running */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	struct cpu *idle = find_idle();  /* it may steal the caller meanwhile */
	if (idle && idle != c)
		lapic_ipi(idle->apic_id, T_RESCHED);
	sched();
}

/* Block the current VP. The caller holds the lock that guards the
   condition it waits for; a waker must take that lock before vp_wake. */
void vp_block(struct spinlock *held)
{
	struct vp *vp = myvp();
	vp->state = VP_BLOCKED;
	if (held)
		spin_unlock(held);
	shake();                         /* a waker may queue us before we are off */
	sched();
}

/* Make a blocked vp runnable, on no queue yet: 1 if this call did (the
   caller must then place it: sched_enqueue or vp_yield_to), 0 if it was
   not blocked. (Inline in vp_wake, every wake-up's path.) */
static inline __attribute__((always_inline)) int claim(struct vp *vp)
{
	int expect = VP_BLOCKED;
	if (!__atomic_compare_exchange_n(&vp->state, &expect, VP_RUNNABLE, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 0;
	trace(TR_WAKE, vp, vp->cpu ? (uint32_t)vp->cpu->id : ~0u);
	return 1;
}

int vp_claim(struct vp *vp)
{
	return claim(vp);
}

int vp_wake(struct vp *vp)
{
	if (!claim(vp))
		return 0;
	sched_enqueue(vp);
	return 1;
}

/* Arm this CPU's one-shot timer for its next deadline. */
void sched_arm_timer(void)
{
	sched_arm_timer_at(now_ns());
}

/* How long after a quantum end already past the timer looks again:
   enough for the CPU to get on with its work between interrupts (a timer
   interrupt costs about a microsecond under icount). */
#define RECHECK_NS 20000

/* The same, the time being `now`. */
void sched_arm_timer_at(uint64_t now)
{
	struct cpu *c = mycpu();
	/* A quantum end already past is looked at again RECHECK_NS later,
	   not at once: the reschedule it asked for happens on the way to user
	   mode or at a sched_point, and a path that put it off (a VP with
	   software interrupts disabled) relies on the timer to ask again.
	   Armed for the past, the timer fired as soon as its handler
	   returned: a VP in a long map (sched_point opens interrupts for one
	   instruction) took timer interrupts back to back and never got
	   through (an icount MPL run hung in frames_alloc). */
	uint64_t next = !c->vp ? ~0UL : c->quantum_end > now ? c->quantum_end : now + RECHECK_NS;
	if (c->vp && c->warn_at && c->warned == WARN_NONE)
		next = MIN(next, c->warn_at);
	/* Reading the list head without kop_lock is safe: only this CPU adds
	   to its list (and re-arms); another CPU can only remove, which makes
	   the true deadline later, so at worst we wake early. */
	next = MIN(next, kop_next_deadline(c));
	/* The tick (cmdline.c): under -icount QEMU gives each vCPU in turn a
	   share of the time to the next deadline, so without one a vCPU can
	   run for a large part of a quantum while the others stand still,
	   and a lock holder's peers spin through it. A busy CPU only: an
	   idle one has nothing to interleave. */
	if (tick_ns && c->vp)
		next = MIN(next, now_ns() + tick_ns);
	if (watchdog_ns)
		next = MIN(next, watchdog_ns);   /* (every CPU: debug.c) */
	lapic_timer_at(next, now);
}

void timer_interrupt(void)
{
	struct cpu *c = mycpu();
	uint64_t now = now_ns();
	c->ticks++;
	watchdog_check(now);
	kop_timers(c, now);
	if (c->vp && c->warn_at && c->warned == WARN_NONE && now >= c->warn_at)
		warn_due(c);
	else if (c->vp && c->warned != WARN_DUE && now >= c->quantum_end)
		c->need_resched = 1;
	sched_arm_timer();
}

/* The running VP's quantum is over (or someone asked us to reschedule). */
void sched_quantum_end(void)
{
	struct cpu *c = mycpu();
	struct vp *vp = c->vp;
	if (unlikely(vp->space->stopped)) {
		pstop_park();            /* its space is stopped: here until continued */
		return;
	}
	uint64_t now = now_ns();
	if (now < c->quantum_end || !warn_contended(c)) {
		vp_yield();              /* a plain reschedule request, or nobody waits */
		return;
	}
	/* A warning was asked for but not yet given: give it first (its
	   deadline will be the full period away). */
	if (c->warn_at && c->warned != WARN_GIVEN) {
		warn_due(c);
		return;
	}
	if (c->warned == WARN_GIVEN)
		warn_ignored(c, vp, now);    /* warned, and still here: probation */
	vp->pp->preemptions++;
	trace(TR_PREEMPT, vp, 0);
	if (READ_ONCE(vp->vpp->want_preempted) && READ_ONCE(vp->vpp->upcall_entry))
		vp->preempted = 1;
	vp_yield();
}
