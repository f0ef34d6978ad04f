/*
 * Blocking operations ("kops"): sleep, simulated I/O, futex wait, a
 * demand-zero page fault with latency, and user timers.
 *
 * A kop blocks either the thread or the VP. If the VP has an upcall entry
 * and its software interrupts are enabled, only the thread blocks: its
 * context moves into the kop, the VP gets EV_BLOCKED at once and keeps
 * its processor, and when the kop completes the VP gets EV_UNBLOCKED with
 * the context and the result. Otherwise (no upcalls registered, or the
 * VP is disabled — say, a fault inside its upcall handler) the VP itself
 * blocks, as in a classic kernel. A VP never gets a nested upcall.
 *
 * One lock, kop_lock, guards every kop, the per-CPU timer heaps and the
 * futex queues: simple and clearly correct; a finer scheme can come when
 * measurements ask for it. Lock order: kop_lock, table_lock, space lock,
 * VP event lock, run-queue lock. The rest, as lockcheck.c sees them in
 * test boots: a pipe's lock, flock's and fshare's after kop_lock; flock's
 * before ftable's, both after table_lock; the file system's (ext2w)
 * before the block cache's, before the disk's (ram, blk); seg, orphan,
 * kheap and pmm after a space's; pmm last of all.
 */
#include "kernel.h"

struct spinlock kop_lock = SPINLOCK_INIT("kop");
static uint64_t next_token = 1;

#define NFUTEX 256
static struct kop *futexq[NFUTEX];

static struct kop **fbucket(uint64_t key)
{
	return &futexq[(key >> 2) % NFUTEX];
}

/* A blank kop of sp's for `kind`. */
static void kop_init(struct kop *op, int kind, struct space *sp)
{
	memset(op, 0, sizeof *op);
	op->kind = kind;
	op->sp = sp;
	op->token = __atomic_fetch_add(&next_token, 1, __ATOMIC_RELAXED);
}

/*
 * A kop for a blocking call of the calling VP, within its space's quota
 * of MAXKOP_SPACE (0 past it: -EAGAIN), so one space cannot eat the
 * kernel heap with blocked threads. It stops at the kernel's reserve
 * (kmalloc_user), and counts in the space's quota through nkops
 * (used_bytes): that count is the charge, with no further work on this
 * path, and MAXKOP_SPACE bounds it (512 KiB); refused for memory -- which
 * other spaces may have taken -- the call still blocks, with the VP's
 * own kop: that blocks the VP classically (kop_wait), like a VP whose
 * event queue is full, so a blocking call never fails for memory. The
 * own kop is free whenever its VP is in a syscall: it is in use only
 * while the VP is blocked.
 */
struct kop *kop_alloc(int kind)
{
	struct vp *vp = myvp();
	struct space *sp = vp->space;
	if (__atomic_add_fetch(&sp->nkops, 1, __ATOMIC_ACQ_REL) > MAXKOP_SPACE) {
		__atomic_sub_fetch(&sp->nkops, 1, __ATOMIC_ACQ_REL);
		return 0;
	}
	struct kop *op = kmalloc_reserve(sizeof *op);   /* charged as nkops: see used_bytes */
	if (!op) {
		__atomic_sub_fetch(&sp->nkops, 1, __ATOMIC_ACQ_REL);
		op = &vp->own_kop;
	}
	kop_init(op, kind, sp);
	op->own = op == &vp->own_kop;
	return op;
}

void kop_free(struct kop *op)
{
	if (op->fpin)
		fkey_unpin(op);          /* (its frame waited on: fkey.c) */
	if (op->own)
		return;                  /* a VP's own (wait or timer): it goes with the VP */
	__atomic_sub_fetch(&op->sp->nkops, 1, __ATOMIC_ACQ_REL);
	kfree(op);
}

/* c's list head changed (kop_lock held): publish its first deadline, so
   the timer interrupt and sched_arm_timer can read it without the lock
   and without touching a kop another CPU may be freeing. */
static void timers_changed(struct cpu *c)
{
	c->next_timer = c->timers ? c->timers->wake_ns : ~0UL;
}

static void timer_insert(struct kop *op)
{
	struct cpu *c = mycpu();
	timerq_insert(&c->timers, op);
	op->tcpu = c;
	timers_changed(c);
}

static void unlink(struct kop *op)
{
	/* Both in O(1) or O(log n): a walk past other spaces' kops here,
	   under the global lock, let one space slow every other's waits. */
	if (op->tcpu) {
		timerq_remove(&op->tcpu->timers, op);
		timers_changed(op->tcpu);
		op->tcpu = 0;
	}
	if (op->fkey) {
		*op->fpprev = op->fnext;
		if (op->fnext)
			op->fnext->fpprev = op->fpprev;
		op->fkey = 0;
	}
	if (op->pprev) {                 /* a pipe's list (pipe.c) */
		*op->pprev = op->pnext;
		if (op->pnext)
			op->pnext->pprev = op->pprev;
		op->pprev = 0;
	}
}

static void space_unlink(struct kop *op)
{
	for (struct kop **pp = &op->sp->kops; *pp; pp = &(*pp)->snext)
		if (*pp == op) {
			*pp = op->snext;
			return;
		}
}

/* A demand-zero page's latency is over: map the page reserved (and
   charged, lazy_fault) at fault time. */
static void page_arrived(struct kop *op)
{
	struct space *sp = op->sp;
	void *pg = (void *)op->result;
	spin_lock(&sp->lock);
	/* (made at the fault, lazy.c; if an unmap near it freed it since,
	   vm_prune, made again here, charged: 0 past the quota, and the
	   page does not arrive) */
	uint64_t *pte = space_pte(sp, op->fault_va);
	/* The region's access now: it may have become PROT_NONE while the
	   page was on its way (then it arrives not present), or been unmapped
	   (then it does not arrive: the thread's retry faults for real). Nor
	   does it arrive inside a fork's window (fork.c, space_lock_settled,
	   which cannot wait here: a CPU spinning on kop_lock, which we hold,
	   would never take the fork's shootdown): the retry faults again. */
	uint64_t fl = lazy_flags(sp, op->fault_va);
	if (pte && fl && !(*pte & PTE_MAPPED) && !__atomic_load_n(&sp->forking, __ATOMIC_ACQUIRE)) {
		*pte = pte_user(V2P(pg), fl);
		pg = 0;
	} else
		sp->pages--;        /* not mapped: its charge goes with it */
	spin_unlock(&sp->lock);
	if (pg)                     /* another thread's fault mapped it first, unmapped, a fork */
		page_free(pg);
	op->result = 0;
	op->arg = BLK_PAGE;
}

/* op's EV_UNBLOCKED: the thread's context, with the call's result. */
static void unblocked(const struct kop *op, struct event *ev)
{
	ev->type = EV_UNBLOCKED;
	ev->vp = 0;
	ev->token = op->token;
	ev->result = op->result;
	ev->thread = op->thread;
	ev->arg = op->kind;
	ev->seq = 0;
	ev->ctx = op->ctx;
	if (op->kind == BLK_DISK)
		ev->ctx.rip -= 2;          /* the syscall again (rax still its number) */
	else if (op->kind != BLK_PAGE && op->kind != BLK_FPAGE)   /* (a fault: its rax stays) */
		ev->ctx.rax = op->result;  /* the blocked syscall's return value */
}

/*
 * A thread's wait holds no place in its VP's event queue while it waits:
 * its EV_UNBLOCKED takes one when the wait completes, if one is free
 * (EVQ_SPARE kept for EV_BLOCKED and signals). Else the completed kop
 * itself waits on the VP's done list, in order, and upcall_return queues
 * its event as places free (kop_post_done). So any number of a VP's
 * threads may be blocked in the kernel at once -- a process-shared
 * condition's hundreds of waiters -- bounded by the kops a space may
 * have (MAXKOP_SPACE, charged as nkops), and the list costs no memory of
 * its own: a done kop stays charged, on sp->kops, until its event is
 * queued or its VP exits (kop_vp_cleanup). kop_lock held.
 */
static int post_unblocked(struct kop *op)
{
	struct event ev;
	unblocked(op, &ev);
	return event_post(op->vp, &ev, EVP_DONE);
}

static void defer(struct kop *op)
{
	struct vp *vp = op->vp;
	op->mode = KOP_DONE;
	op->dnext = 0;
	if (!vp->done)
		vp->done_tail = &vp->done;
	*vp->done_tail = op;
	vp->done_tail = &op->dnext;
	if (READ_ONCE(vp->idle_wait))
		vp_wake(vp);             /* (a full queue is never idle: belt and braces) */
}

/* Queue the EV_UNBLOCKED of vp's done waits while there is room: on
   vp's way back to user mode (upcall_return), its own CPU. */
void kop_post_done(struct vp *vp)
{
	spin_lock(&kop_lock);
	while (vp->done && post_unblocked(vp->done) == 0) {
		struct kop *op = vp->done;
		vp->done = op->dnext;
		space_unlink(op);
		kop_free(op);
	}
	spin_unlock(&kop_lock);
}

/* Finish op with `result`; kop_lock held. */
static void complete(struct kop *op, uint64_t result)
{
	unlink(op);
	op->result = result;
	struct vp *vp = op->vp;
	if (vp->magic != VP_MAGIC)
		panic("kop: a %s completed for a freed VP", op->mode == KOP_UTIMER ? "user timer" : "wait");
	if (op->mode != KOP_UTIMER)
		trace(TR_UNBLOCK, vp, op->mode == KOP_THREAD);
	shake();                   /* (kop_lock held: the others wait) */
	if (op->mode == KOP_VP) {
		op->done = 1;          /* the waiter frees it */
		vp_wake(vp);
		return;
	}
	if (op->mode == KOP_UTIMER) {
		struct event ev = { .type = EV_TIMER, .token = op->arg, .result = result,
				    .thread = op->thread, .arg = op->wake_ns };
		vp->utimer = 0;
		event_post(vp, &ev, EVP_RESERVED);   /* reserved when it was armed */
	} else {
		__atomic_fetch_add(&vp->pp->unblocks, 1, __ATOMIC_RELAXED);
		if (vp->done || post_unblocked(op)) {
			defer(op);           /* behind the others owed, in order */
			return;
		}
	}
	space_unlink(op);
	kop_free(op);
}

static int interruptible(const struct kop *op);

/*
 * Block on op, which the caller has filled in (kind, wake_ns, fkey) while
 * holding kop_lock. Releases kop_lock. Returns the result (VP mode) or 0
 * after arranging EV_BLOCKED (thread mode; the return path then delivers
 * the upcall instead of returning to the caller).
 */
long kop_wait(struct kop *op, struct trapframe *tf)
{
	struct vp *vp = myvp();
	struct space *sp = vp->space;
	op->vp = vp;
	op->sp = sp;
	op->snext = sp->kops;
	sp->kops = op;
	__atomic_fetch_add(&vp->pp->blocks, 1, __ATOMIC_RELAXED);
	if (op->fkey) {
		struct kop **b = fbucket(op->fkey);
		op->fnext = *b;
		if (*b)
			(*b)->fpprev = &op->fnext;
		op->fpprev = b;
		*b = op;
	}
	int immediate = op->wake_ns && op->wake_ns <= now_ns();
	if (op->wake_ns && !immediate)
		timer_insert(op);

	/* Thread mode needs a place for its EV_BLOCKED, not for the
	   EV_UNBLOCKED to come (complete: a done list holds it when the
	   queue is full). A VP whose queue has no room (a handler that does
	   not drain its ring) blocks classically instead: it loses no
	   event, and the call still returns. */
	int thread_mode = 0;
	if (!op->own && upcalls_on(vp, tf)) {
		struct event ev;     /* the header only: EV_BLOCKED has no context */
		ev.type = EV_BLOCKED;
		ev.vp = 0;
		ev.token = op->token;
		ev.result = 0;
		ev.thread = op->thread = READ_ONCE(vp->vpp->current_thread);
		ev.arg = op->kind;
		ev.seq = 0;
		thread_mode = event_post(vp, &ev, EVP_START) == 0;
	}
	trace(TR_BLOCK, vp, (uint32_t)thread_mode);
	if (thread_mode) {
		/* (kop_lock held: nothing completes op before it is filled in) */
		op->mode = KOP_THREAD;
		ctx_from_tf(&op->ctx, tf);
		if (immediate)
			kop_expire(op);
		sched_arm_timer();
		spin_unlock(&kop_lock);
		shake();             /* the thread blocked, op may complete now */
		return 0;
	}
	op->mode = KOP_VP;
	if (immediate)
		kop_expire(op);
	else if (__builtin_expect(READ_ONCE(vp->sigwake), 0) && interruptible(op) &&
		 __atomic_exchange_n(&vp->sigwake, 0, __ATOMIC_ACQ_REL))
		complete(op, (uint64_t)-EINTR);    /* told before it blocked (kop_interrupt) */
	sched_arm_timer();
	while (!op->done && sp->state == SP_ALIVE) {
		vp_block(&kop_lock);
		shake();
		spin_lock(&kop_lock);
	}
	long r = op->done ? (long)op->result : -EINTR;
	if (!op->done && op->kind == BLK_PAGE && op->result)
		lazy_unreserve(sp, (void *)op->result);   /* the page reserved at fault time */
	unlink(op);
	space_unlink(op);
	spin_unlock(&kop_lock);
	kop_free(op);
	return r;
}

/* op's deadline has passed (kop_lock held). */
void kop_expire(struct kop *op)
{
	uint64_t r = op->result;
	if (op->kind == BLK_FUTEX)
		r = (uint64_t)-ETIMEDOUT;
	else if (op->kind == BLK_PAGE) {
		page_arrived(op);
		r = 0;
	}
	complete(op, r);
}

/* Timer interrupt: complete this CPU's kops whose time has come. */
void kop_timers(struct cpu *c, uint64_t now)
{
	/* Most interrupts find nothing due: then leave the global lock alone
	   (every CPU's timer interrupt taking it made a convoy under load). */
	if (c->next_timer > now)
		return;
	spin_lock(&kop_lock);
	while (c->timers && c->timers->wake_ns <= now)
		kop_expire(c->timers);
	spin_unlock(&kop_lock);
}

uint64_t kop_next_deadline(struct cpu *c)
{
	return c->next_timer;        /* racy read is safe: see sched_arm_timer */
}

/* May a wake of key by sp reach op? A private key (a physical address,
   not a segment's or a shared file page's: fkey.c) reaches only waiters
   of space sp: private memory is never shared, but a waiter stays queued
   under its frame's address after its space unmapped the page, and the
   frame may go to another space, whose wakes must not reach it. */
static int reaches(const struct kop *op, uint64_t key, struct space *sp)
{
	return op->fkey == key && ((key & (SEGKEY_TAG | FSHKEY_TAG)) || op->sp == sp);
}

/* Wake up to n futex waiters on key; returns how many. One waiter (a
   semaphore's post, a mutex's unlock, a condition's signal) is the one
   of highest priority (FUTEX_PRIO), the longest waiting (lowest token)
   among equals, as POSIX asks of SCHED_FIFO waiters, whatever their
   process: one walk of the bucket, as a wake of more takes. */
int futex_wake_key(uint64_t key, int n, struct space *sp)
{
	int woken = 0;
	spin_lock(&kop_lock);
	if (n == 1) {
		struct kop *best = 0;
		for (struct kop *op = *fbucket(key); op; op = op->fnext)
			if (reaches(op, key, sp) && (!best || op->prio > best->prio ||
						     (op->prio == best->prio && op->token < best->token)))
				best = op;
		if (best) {
			complete(best, 0);
			woken = 1;
		}
	}
	for (struct kop *op = *fbucket(key), *next; op && woken < n; op = next) {
		next = op->fnext;
		if (reaches(op, key, sp)) {
			complete(op, 0);
			woken++;
		}
	}
	spin_unlock(&kop_lock);
	return woken;
}

/* Complete every wait on a pipe's list (pipe.c): result 0, "look again". */
void kop_wake_list(struct kop **list)
{
	spin_lock(&kop_lock);
	while (*list)
		complete(*list, 0);      /* (unlink takes it off the list) */
	spin_unlock(&kop_lock);
}

/* Wake every disk wait (BLK_DISK) on key, a block buffer's (bcache.c),
   any space's: result 1, "ask again". */
void kop_wake_disk(uint64_t key)
{
	spin_lock(&kop_lock);
	for (struct kop *op = *fbucket(key), *next; op; op = next) {
		next = op->fnext;
		if (op->fkey == key)
			complete(op, 1);
	}
	spin_unlock(&kop_lock);
}

/* Complete every futex wait of space sp on segment seg_id with err: sp
   lost its mapping (unmap, revoke). Only sp's own kops are walked (at
   most MAXKOP_SPACE), never every space's: a waiter on a segment word is
   always in a space that maps it (its key needs the mapping, and its
   copyin, under kop_lock, faults once the mapping is gone), so the
   unmapping of each space reaches them all. (A revoke used to walk every
   futex queue as well, under the global lock with interrupts off: with
   3,968 other spaces' waits pending a revoke took 105,656 instructions
   instead of 26,792, progs/tests/timerload.c.) */
void futex_cancel_seg(int seg_id, struct space *sp, long err)
{
	uint64_t tag = (SEGKEY_TAG | ((uint64_t)seg_id << 32)) >> 32;
	spin_lock(&kop_lock);
	for (struct kop *op = sp->kops, *next; op; op = next) {
		next = op->snext;
		if (op->fkey && op->fkey >> 32 == tag)
			complete(op, (uint64_t)err);
	}
	spin_unlock(&kop_lock);
}

/* May a signal from another process cut op's wait short? A sleep, futex
   or pipe wait of a classic VP that takes interrupts (intr_entry): a
   thread blocked alone on an upcall VP needs none, its VP hears EV_PSIG. */
static int interruptible(const struct kop *op)
{
	const struct vp_page *p = op->vp->vpp;
	return (op->kind == BLK_SLEEP || op->kind == BLK_FUTEX || op->kind == BLK_PIPE) &&
	       READ_ONCE(p->intr_entry) && !READ_ONCE(p->upcall_entry);
}

/* A signal from another process is pending for sp (psig.c, which set
   each VP's sigwake as it told it): end with -EINTR every interruptible
   wait in which one of sp's VPs is blocked whole, so that it returns to
   user mode, takes the interrupt and looks (its waits look again at
   their word: a wake-up without cause is harmless); a VP about to block
   finds its sigwake instead (kop_wait). Either consumes sigwake, so a
   signal cuts one wait short at most. Only sp's kops are walked (at most
   MAXKOP_SPACE), once per take. The caller holds kop_lock. */
void kop_interrupt_held(struct space *sp)
{
	for (struct kop *op = sp->kops, *next; op; op = next) {
		next = op->snext;
		if (op->mode == KOP_VP && !op->done && interruptible(op) &&
		    __atomic_exchange_n(&op->vp->sigwake, 0, __ATOMIC_ACQ_REL))
			complete(op, (uint64_t)-EINTR);
	}
}

/* The same, taking kop_lock. Never with table_lock held: kop_lock comes
   first (space_end takes kop_lock, then table_lock), and a SIGCHLD sent
   under table_lock that took kop_lock here deadlocked both CPUs, with
   interrupts off, against an exit on the other (psig.c, pstop.c report). */
void kop_interrupt(struct space *sp)
{
	if (spin_held(&table_lock))
		panic("kop_interrupt: table_lock held (the order is kop_lock, then table_lock)");
	spin_lock(&kop_lock);
	kop_interrupt_held(sp);
	spin_unlock(&kop_lock);
}

/*
 * SYS_wait_cut: end with -EINTR every futex wait of sp whose cut word
 * (SYS_futex_wait_cut) is at user address cut; how many. A thread of the
 * same space ends another's process-shared wait so that it runs a signal
 * handler or acts on a cancel (ulib/pthread/pshared.c): on an upcall VP
 * only the thread is blocked (KOP_THREAD: its EV_UNBLOCKED carries
 * -EINTR), on a classic one the VP (KOP_VP). Only sp's own kops are
 * walked (at most MAXKOP_SPACE), so no space reaches another's waits, and
 * a cut names a word of sp's own address space, not a key: a word of a
 * shared segment cuts only sp's waits on it too. A cut that comes before
 * the wait is queued is not lost: the cutter changes the word first, and
 * the waiter reads it under kop_lock before it queues (vpsys.c), so
 * either it sees the change (-EINTR at once) or this walk, under the same
 * lock, finds it queued. No state is kept for a cut that found nobody.
 */
int kop_cut(struct space *sp, uint64_t cut)
{
	int n = 0;
	spin_lock(&kop_lock);
	for (struct kop *op = sp->kops, *next; op; op = next) {
		next = op->snext;
		if (op->cut == cut && op->kind == BLK_FUTEX && !op->done &&
		    (op->mode == KOP_THREAD || op->mode == KOP_VP)) {
			complete(op, (uint64_t)-EINTR);
			n++;
		}
	}
	spin_unlock(&kop_lock);
	return n;
}

/* A timer armed with TIMER_RTSET (kop_lock held): its VP's runtime keeps
   deadlines converted from CLOCK_REALTIME at offset `off`, so the timer
   fires at every clock set while armed (rt_waits, as a realtime futex
   wait: rtclock.c), and at once if the offset is not `off` already (a
   set came before). The caller's pseudo page gets the offset compared
   with, so that its next look converts at it. */
static void utimer_rtset(struct vp *vp, struct kop *op, int64_t off)
{
	int64_t cur = __atomic_load_n(&rt_off, __ATOMIC_RELAXED);
	__atomic_store_n(&vp->pp->rt_off, cur, __ATOMIC_RELEASE);
	if (cur != off)
		op->wake_ns = now_ns() + 1;
	rt_wait_add(op);
}

/*
 * Arm (or with deadline 0 cancel) the calling VP's one-shot user timer.
 * Arming reserves the EV_TIMER it will post (-EAGAIN if the VP's queue
 * has no room: its earlier expiries are still undelivered); re-arming an
 * armed timer moves it, keeping its reservation. Its kop is the VP's own
 * timer_kop, allocated with the VP: arming never allocates, so it never
 * fails for memory, and nothing accumulates however often a VP re-arms.
 */
long utimer_set(uint64_t deadline, uint64_t token, uint64_t off)
{
	struct vp *vp = myvp();
	int rtset = (deadline & TIMER_RTSET) != 0;
	deadline &= ~TIMER_RTSET;
	spin_lock(&kop_lock);
	struct kop *op = vp->utimer;
	if (op) {
		unlink(op);
		space_unlink(op);
	}
	if (!deadline) {
		if (op) {
			vp->utimer = 0;
			kop_free(op);
			event_unreserve(vp, 1);
		}
		spin_unlock(&kop_lock);
		return 0;
	}
	if (!op) {
		long err = event_reserve(vp, 1);
		if (err) {
			spin_unlock(&kop_lock);
			return err;
		}
		op = &vp->timer_kop;
		kop_init(op, 0, vp->space);
		op->own = 1;
	}
	op->mode = KOP_UTIMER;
	op->vp = vp;
	op->sp = vp->space;
	op->arg = token;
	op->wake_ns = MAX(deadline, now_ns() + 1);
	if (rtset)
		utimer_rtset(vp, op, (int64_t)off);
	op->snext = vp->space->kops;
	vp->space->kops = op;
	timer_insert(op);
	vp->utimer = op;
	sched_arm_timer();
	spin_unlock(&kop_lock);
	return 0;
}

/* vp is exiting alone (SYS_vp_exit): drop the kops it started. */
void kop_vp_cleanup(struct vp *vp)
{
	spin_lock(&kop_lock);
	for (struct kop **pp = &vp->space->kops; *pp;) {
		struct kop *op = *pp;
		if (op->vp != vp) {
			pp = &op->snext;
			continue;
		}
		*pp = op->snext;
		unlink(op);
		if (op->kind == BLK_PAGE && op->result)
			lazy_unreserve(op->sp, (void *)op->result);
		kop_free(op);      /* its reservations go with the VP */
	}
	vp->utimer = 0;
	vp->done = 0;              /* (its done kops were freed with the rest) */
	spin_unlock(&kop_lock);
	shake();                   /* its kops gone, the VP not yet a zombie */
}

/* The space is finished: drop its remaining kops (thread-mode waits and
   timers; VP-mode waiters removed their own on the way out). */
void kop_space_cleanup(struct space *sp)
{
	spin_lock(&kop_lock);
	while (sp->kops) {
		struct kop *op = sp->kops;
		sp->kops = op->snext;
		unlink(op);
		if (op->kind == BLK_PAGE && op->result)
			lazy_unreserve(sp, (void *)op->result);
		kop_free(op);
	}
	spin_unlock(&kop_lock);
}
