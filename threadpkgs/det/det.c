/*
 * det: a deterministic thread package. The same program, input and argv
 * give the same output whatever the machine does: -smp 1, 2 or 4, any
 * vps=N, the kernel's jitter, other spaces beside it, a busy host. Data
 * races included: a racy program prints the same answer every run.
 *
 * DTHREADS (Liu, Curtsinger, Berger, SOSP '11) gets determinism by
 * passing a global token among threads in a fixed order at
 * synchronization points, and runs threads in isolation between them.
 * det keeps the first half and gives up the second: exactly one det
 * thread runs at a time (it holds the token), on one VP, and the token
 * moves only where the program itself makes it move: when the holder
 * blocks on a mutex, condition, barrier, semaphore, join..., yields,
 * or exits. The next holder is the head of one FIFO run queue, and every
 * change to that queue is made by the holder at one of those points, so
 * the order of everything the threads do is a function of the program
 * alone. (DTHREADS's parallel phase, on the kernel's isolated views, is
 * par.c: `det=par` on the command line. This file is the serial det.)
 *
 * What makes it work:
 * - One classic VP (rtpkg.classic): no upcalls, so the kernel's
 *   preemptions, warnings and timer events never switch threads, and a
 *   call that blocks in the kernel (a read, a sleep) blocks the token
 *   holder with its VP: nobody runs in the meantime, so when it comes
 *   back does not matter. vps=N is accepted and ignored (det_pkg.run):
 *   a second VP could only run a second thread at once.
 * - No time slices, no balancing, no stealing: nothing depends on time.
 * - malloc's per-VP caches, stdio's buffers, errno and rand are touched
 *   by one thread at a time, in the program's order, so they are too.
 * - Timed waits (det_block_until) run on logical time: `ticks` counts
 *   the token's moves (and yields), and a timed wait of d ms (rounded,
 *   at least 1) times out TICKS_PER_MS * d ticks after it began, or
 *   earlier when no thread can run at all (the earliest logical
 *   deadline first, ties in the order the waits began); it then goes
 *   to the run queue's tail, so pollers cannot starve it. Its real
 *   deadline is honoured too: the thread that timed out sleeps what is
 *   left of it in the kernel holding the token (nobody runs meanwhile,
 *   so nothing depends on how long that is). So a timeout comes at the
 *   same point of the program in every run, never before its deadline,
 *   and a thread that sleeps while others keep each other busy still
 *   wakes. The one thing read from the clock is the wait's length, in
 *   whole ms: a length measured a hair from a half-ms boundary could
 *   round either way.
 *
 * Asynchronous signals (docs/posix.md "det"): a thread that only
 * computes keeps the token, so nothing else of the program would run.
 * - The timer thread (alarm, setitimer, timer_create: a service thread,
 *   __pt_service) waits on real time, not logical time: its deadline
 *   comes from outside. det sets the VP's one-shot timer for it
 *   (rt_due_arm); the interrupt has the holder yield (intr_run) and
 *   pick() hands the timer thread the token before anyone else. Where
 *   that lands in a computing thread depends on time: not deterministic.
 *   Its first turn (alarm's first arming yields for it) comes first too,
 *   the maker right after; a holder that yields to a due timer goes
 *   behind what the signal's handler wakes (enqueue: yielder, aside).
 * - A handler or an asynchronous cancel for a thread that does not hold
 *   the token (pthread_kill, kill, pthread_cancel, the timer's signal)
 *   makes it `urgent`: it gets the token next, its VP interrupted as it
 *   does (so the handler runs, or the cancel acts, where it stopped),
 *   and the sender lets the token go at once (det_interrupt). Sent by a
 *   det thread at a point of the program, that is deterministic.
 * - A signal from another process interrupts the VP (the holder runs it).
 * A program that arms no timer and gets no signal from outside runs
 * exactly as before: the new lists stay empty.
 *
 * Not covered (docs/posix.md "det"): threads that wait by spinning on a
 * shared flag without a library call never let the token go (DTHREADS's
 * limit too; sched_yield does let it go); what the program reads from
 * clocks; when a timer's or another process's signal lands; threads of
 * other packages or spaces waking det threads (their order is theirs).
 *
 * A program whose threads all block with no timed wait among them is
 * deadlocked: det says so, names the blocked threads, and exits with
 * status DET_DEADLOCK, unless a wake-up from outside (another package,
 * another space) comes within DEADLOCK_NS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/rtq.h>
#include <animart/fence.h>
#include "par.h"
#include "deadlock.h"

#define TICKS_PER_MS  20                    /* a timed wait's ms, in token moves */
/* Turns the holder keeps the token for (det_turn): 50 logical ms. At 1
   ms (20) canneal's 200,000 unlocks moved it 9,949 times, 12% of the
   run in guest instructions; a poller still lets the others run after
   1,000 polls (test_detpoll), a sleep still ends on time (test_detloop). */
#define TURN_SLICE    (50 * TICKS_PER_MS)

static struct rtq runq;              /* who gets the token next, in order */
static struct rtq urgent;            /* before runq: a handler or cancel waits for them */
static struct uthread *aside;        /* yielded to a due timer, at runq's tail: wakes go before it till urgent is done */
static struct uthread *yielder;      /* the holder pick() just passed over for a service thread */
static int yield_aside;              /* ... for a due timer (else a first turn) */
static struct rtpkg det;

/* Live threads in creation order (for the deadlock report), and the
   timed waiters, earliest deadline first. Touched by the token holder,
   or by the scheduler loop when nobody holds it: one VP, so no lock.
   A record per descriptor, found by a walk of `all` (t.pkg is the
   runtime's; descriptors are reused, never freed: rt_desc_new). */
struct dthr {
	struct uthread *t;
	uint64_t deadline;           /* of its timed wait, in ticks, or 0 */
	uint64_t real;               /* that wait's real deadline (now_ns's clock) */
	int rt;                      /* a service thread's wait, on rtimed */
	int fired;                   /* its timed wait ran out (nobody) */
	struct dthr *next, *tnext, *anext;
};
static struct dthr *live;
static struct dthr *timed;
static struct dthr *rtimed;          /* service threads' waits, earliest real deadline first */
static struct dthr *all;
static uint64_t ticks;               /* logical time: the token's moves */
/* For the report at exit (det_report): deterministic like the rest. */
static struct { uint64_t moves, yields, timeouts, created; } st;
static uint64_t turns;               /* det_turn's: turns since the token last moved */
static long granted;                 /* quiet turns allowed by the last grant (quiet) */

/* The quiet turns the holder took since det last looked (fence_quiet),
   each a turn that did not move the token, counted as det_turn counts
   one; no more until det_turn grants them. By the holder, software
   interrupts off, before anything reads the logical time. */
static inline void settle(void)
{
	if (!(granted | __fence_quiet_left))
		return;                  /* (no grant out: a yield pays a look) */
	long n = granted - __fence_quiet_left;
	__fence_quiet_left = 0;
	granted = 0;
	ticks += n;
	st.yields += n;
	turns += n;
}

/* Quiet turns end now: the holder's next turn is det_turn's (which
   counts those taken). A store that may come from outside the holder. */
static void unquiet(void)
{
	__atomic_store_n(&__fence_quiet_by, 0, __ATOMIC_RELAXED);
}

/* ulib/pthread/pthread.c: the library's timer threads (weak: a program
   without the POSIX layer has none). */
int __pt_service(struct thread *t) __attribute__((weak));
static int service(struct uthread *t)
{
	return __pt_service && __pt_service(&t->t);
}

static struct dthr *dthr_of(struct uthread *t)
{
	for (struct dthr *d = all; d; d = d->anext)
		if (d->t == t)
			return d;
	struct dthr *d = calloc(1, sizeof *d);
	if (!d) {
		printf("det: out of memory for a thread record\n");
		exit(70);
	}
	d->t = t;
	d->anext = all;
	all = d;
	return d;
}

static int real_due(void);
static int rtq_take(struct rtq *q, struct uthread *t);

static struct rtvp *enqueue(struct rtvp *v, struct uthread *t, int why)
{
	(void)v;
	if (why == RQ_NEW) {         /* at the end of the live list */
		st.created++;
		struct dthr *d = dthr_of(t), **pp = &live;
		while (*pp)
			pp = &(*pp)->next;
		d->next = 0;
		*pp = d;
	}
	/* A service thread woken early (an arming moved its deadline
	   closer), or whose deadline passed as it blocked (fire_real: its
	   park was cancelled): it must get a turn though the holder only
	   computes. Next, and the VP's timer now has the holder yield
	   (intr_run). */
	if (service(t) && (why == RQ_UNBLOCK || (why == RQ_YIELD && dthr_of(t)->fired))) {
		rtq_push(&urgent, t, 0);
		unquiet();               /* (the holder's next turn looks: det_turn) */
		rt_due_arm(now_ns());
		return 0;
	}
	/* A service thread just made (alarm's first arming yields for its
	   first turn: ulib/libc/timer.c's arm): first too, so it sleeps
	   until its deadline now, not behind threads that only compute. */
	if (why == RQ_NEW && service(t)) {
		rtq_push(&urgent, t, 0);
		unquiet();
		return 0;
	}
	/* The holder yielded to a service thread (pick: yielder), a turn
	   that is not the program's. After a first turn (or an early wake
	   by an arming) it goes on first, as if alarm had not yielded: the
	   program's order stays its own. After a due timer's it goes
	   behind what that timer's signal handler wakes (aside: at the
	   tail, and what is woken before the urgent ones are done goes
	   before it), as a time slice would on Linux:
	   a handler's cond_signal wakes its waiter though the holder only
	   computes. */
	if (why == RQ_YIELD && t == yielder) {
		yielder = 0;
		rtq_push(&runq, t, !yield_aside);
		if (yield_aside)
			aside = t;
		return 0;
	}
	/* Woken while the aside one waits for the urgent ones: before it. */
	if (aside && why == RQ_UNBLOCK && rtq_take(&runq, aside)) {
		rtq_push(&runq, t, 0);
		rtq_push(&runq, aside, 0);
		return 0;
	}
	rtq_push(&runq, t, 0);
	return 0;
}

/* Take t out of q if it is there (software interrupts off). */
static int rtq_take(struct rtq *q, struct uthread *t)
{
	int found = 0;
	spin_lock_by(&q->lock, 0);
	for (struct uthread **pp = &q->head, *prev = 0; *pp; prev = *pp, pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			if (q->tail == t)
				q->tail = prev;
			q->len--;
			found = 1;
			break;
		}
	spin_unlock_by(&q->lock, 0);
	return found;
}

/* Take d off the timed list (it was unblocked before its deadline). */
static void untime(struct dthr *d)
{
	for (struct dthr **pp = &timed; *pp; pp = &(*pp)->tnext)
		if (*pp == d) {
			*pp = d->tnext;
			break;
		}
	d->deadline = 0;
}

/* Take d off rtimed (woken before its deadline). */
static void unreal(struct dthr *d)
{
	for (struct dthr **pp = &rtimed; *pp; pp = &(*pp)->tnext)
		if (*pp == d) {
			*pp = d->tnext;
			break;
		}
	d->rt = 0;
}

/* The first service wait's real deadline has passed. */
static int real_due(void)
{
	return rtimed && rtimed->real <= now_ns();
}

/* That waiter, taken off rtimed with its time up (fire's twin, on real
   time; not counted in st: its timing is not the program's). The VP's
   timer then goes to the next one's deadline. */
static struct uthread *fire_real(void)
{
	struct dthr *d = rtimed;
	int expect = PARK_PARKED;
	rtimed = d->tnext;
	d->rt = 0;
	rt_due_passed();                 /* (its interrupt owes no yield now) */
	if (rtimed)
		rt_due_arm(rtimed->real);
	if (!__atomic_compare_exchange_n(&d->t->t.park, &expect, PARK_RUN, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* Not parked: on its way to rt_block, the deadline passed
		   meanwhile. Either it blocks now (pick() inside rt_block, a
		   timer due within microseconds), or an interrupt made it
		   yield between real_wait's rtimed and its park (intr_run: a
		   due passed, a kick) and it waits in a queue, still to park;
		   or an unblock just queued it. A permit in every case, so a
		   park to come does not commit and it runs again, timed out
		   (urgent: enqueue); after an unblock the permit only makes
		   its next wait look once more. Dropped, it parked with no
		   deadline and the timer thread never woke again (portcompat's
		   itimer on det-2: its watcher lost after a yield there). */
		expect = PARK_RUN;
		__atomic_compare_exchange_n(&d->t->t.park, &expect, PARK_PERMIT, 0,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
		d->fired = 1;
		if (rtq_take(&runq, d->t))   /* (yielded: next, as enqueue puts a fired one) */
			rtq_push(&urgent, d->t, 0);
		return 0;
	}
	d->fired = 1;
	return d->t;
}

static void each_live(det_say say)
{
	for (struct dthr *d = live; d; d = d->next)
		say(d->t, d == live);
}

/* The earliest timed waiter, taken off the list with its time up, as
   its waker would (PARKED -> RUN); 0 if a waker from outside got there
   first (it is being queued). */
static struct uthread *fire(void)
{
	struct dthr *d = timed;
	int expect = PARK_PARKED;
	timed = d->tnext;
	if (d->deadline > ticks)
		ticks = d->deadline;     /* logical time jumps to it (nobody) */
	d->deadline = 0;
	if (!__atomic_compare_exchange_n(&d->t->t.park, &expect, PARK_RUN, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 0;
	d->fired = 1;
	st.timeouts++;
	return d->t;
}

/*
 * Nobody to run. The earliest timed waiter times out now: logical time
 * jumps to its deadline (nothing else could happen before it), so the
 * waits that begin after it are measured from there.
 * With no timed waiter and live threads, wait a while for a wake-up
 * from outside (another package, another space), then call it a
 * deadlock. The VP counts as idle meanwhile, so that an enqueue from
 * outside wakes it (rt_make_runnable).
 */
static struct uthread *nobody(void)
{
	for (;;) {
		struct uthread *t;
		if (real_due()) {
			if ((t = fire_real()))
				return t;
			continue;
		}
		/* (a service wait due before it in real time comes first: with
		   no timer armed, rtimed is empty and the order is logical) */
		if (timed && (!rtimed || timed->real <= rtimed->real)) {
			if ((t = fire()))
				return t;
			continue;
		}
		if (!live)
			return 0;
		uint64_t until = now_ns() + DEADLOCK_NS;
		if (rtimed && rtimed->real < until)
			until = rtimed->real;    /* a timer will come: no deadlock */
		__atomic_fetch_add(&det.nidle, 1, __ATOMIC_ACQ_REL);
		for (;;) {
			uint32_t seq = __atomic_load_n(&det.wake_seq, __ATOMIC_ACQUIRE);
			/* Signals from another process: wake the threads that
			   take them, as the runtime's idle loop does (rt_sched.c).
			   Before, a det thread blocked alone in sem_wait never
			   saw its SIGUSR1 (EINTR on Linux), and det called it a
			   deadlock: the wait below, cut short by the signal,
			   only waited again. */
			if (!det_par && thread_kern_sigs && thread_signal_dispatch)
				thread_signal_dispatch();
			uint64_t now = now_ns();
			if (runq.len || urgent.len || now >= until)
				break;
			if (syscall3(SYS_futex_wait, &det.wake_seq, seq, until - now) == -EINTR)
				thread_kern_sigs = 1;   /* (this VP, disabled, takes no interrupt for it) */
		}
		__atomic_fetch_sub(&det.nidle, 1, __ATOMIC_ACQ_REL);
		if (urgent.len)
			return 0;                /* (pick takes it) */
		if ((t = rtq_pop(&runq)))
			return t;
		if (rtimed)
			continue;
		det_deadlock(each_live);
	}
}

/* An urgent thread, if any: a handler or cancel waits for it, so its VP
   is interrupted as it gets the token (taken at its first enabled point,
   where it stopped: intr_run runs it). A service thread is urgent only to
   run: nothing waits for it. */
static struct uthread *take_urgent(struct rtvp *v)
{
	struct uthread *t = rtq_pop(&urgent);
	if (t && !service(t))
		rt_kick(v);
	return t;
}

/*
 * The next holder of the token: the head of the run queue, behind which
 * the timed waiters whose logical time is up have just gone. Every move of the token and every
 * yield is a tick. With nobody to run, the scheduler loop (no thread on
 * the VP: rt_block and rt_exit ask too, before the caller is parked or
 * its joiner claimed) goes to nobody().
 */
static struct uthread *pick(struct rtvp *v, struct uthread *cur)
{
	struct uthread *t = 0;
	settle();
	if (cur) {
		ticks++;
		st.yields++;
	}
	while (!t && real_due())
		t = fire_real();
	yield_aside = t != 0;
	if (!t)
		t = take_urgent(v);
	yielder = t && cur && service(t) && !service(cur) ? cur : 0;
	if (!t) {
		aside = 0;               /* (the urgent ones are done) */
		/* Timed out: runnable, at the queue's tail. Taken before the
		   queue, a few dozen threads polling on timed waits (an xsem
		   waiter's naps: xsync.c) always had one due and the queue
		   never ran: the thread that would post starved. */
		while (timed && timed->deadline <= ticks) {
			struct uthread *f = fire();
			if (f)
				rtq_push(&runq, f, 0);
		}
		t = rtq_pop(&runq);
	}
	if (!t && !cur && !v->vpp->current_thread && !(t = nobody()))
		t = take_urgent(v);
	if (t && !cur)
		ticks++;
	if (t)
		st.moves++;
	return t;
}

static int real_wait(struct uthread *u, struct dthr *d, uint64_t deadline);

/*
 * A timed-out waiter sleeps the rest of its real deadline in the kernel,
 * holding the token: r is what that sleep returned. Another process's
 * signal cuts it short (-EINTR), but an interrupt does not take the
 * signal inside a wait of the POSIX layer (intr_run: async_hold), so
 * take it here: its post to us sets our sigpend. Nonzero when sigpend
 * is no longer sp (a handler waits for us, or ran): the wait ends early
 * and its caller runs the handler and says EINTR, as on Linux (sleeps,
 * sem_timedwait). Before, the sleep went on to its deadline. (Only
 * det: no other det thread runs meanwhile. det=par's waiter of the same
 * kind was changed alike and lost turns to its own process's signals:
 * the public suite's pthread_join 6-3 hung there; docs/posix.md.)
 */
static int sig_cut(struct thread *t, int sp, long r)
{
	if (r != -EINTR || det_par)
		return 0;
	if (thread_kern_sigs && thread_signal_dispatch)
		thread_signal_dispatch();
	return t->sigpend != sp;
}

/*
 * A timed wait. The thread parks untimed and goes on the timed list,
 * its length in ticks from now; pick() or nobody() hands it the token
 * back when that comes (fired). An unblock before that takes it off the
 * list. Timed out, it sleeps the rest of its real deadline holding the
 * token.
 */
static int det_block_until(struct thread *self, uint64_t deadline)
{
	struct uthread *u = (struct uthread *)self;
	struct dthr *d = dthr_of(u), **pp = &timed;
	int was;
	deadline = dl_boot(deadline);    /* (logical time: a clock set later does not reach it) */
	if (service(u))
		return real_wait(u, d, deadline);
	uint64_t now = now_ns();
	uint64_t ms = deadline > now ? (deadline - now + 500000) / 1000000 : 0;
	vp_disable_save_self(&was);
	settle();
	d->deadline = ticks + (ms ? ms : 1) * TICKS_PER_MS;
	d->real = deadline;
	d->fired = 0;
	while (*pp && (*pp)->deadline <= d->deadline)
		pp = &(*pp)->tnext;      /* after equal ones: first come, first out */
	d->tnext = *pp;
	*pp = d;
	if (!was)
		vp_enable_self();
	rt_park(self);
	vp_disable_save_self(&was);
	int fired = d->fired;
	if (d->deadline)
		untime(d);               /* woken before it (or a permit) */
	if (!was)
		vp_enable_self();
	if (!fired)
		return 0;
	/* The rest of the real deadline, but a service wait due meanwhile
	   gets its turn (a timer's signal may end this wait: then 0) */
	int sp = u->t.sigpend;
	while ((now = now_ns()) < deadline) {
		if (real_due()) {
			thread_yield();
			if (u->t.sigpend != sp)
				return 0;
			continue;
		}
		long r = sys_sleep((rtimed && rtimed->real < deadline ? rtimed->real : deadline) - now);
		if (sig_cut(&u->t, sp, r))
			return 0;        /* (another process's signal) */
	}
	return -ETIMEDOUT;
}

/*
 * A service thread's timed wait (the timer thread: alarm, setitimer,
 * timer_create), on real time: on rtimed, with the VP's one-shot timer
 * set for it (rt_due_arm), whose interrupt has a computing holder yield
 * (intr_run); pick() or nobody() then fires it first.
 */
static int real_wait(struct uthread *u, struct dthr *d, uint64_t deadline)
{
	struct dthr **pp = &rtimed;
	int was;
	vp_disable_save_self(&was);
	d->real = deadline;
	d->rt = 1;
	d->fired = 0;
	while (*pp && (*pp)->real <= deadline)
		pp = &(*pp)->tnext;
	d->tnext = *pp;
	*pp = d;
	if (!was)
		vp_enable_self();
	rt_due_arm(deadline);
	rt_park(&u->t);
	vp_disable_save_self(&was);
	int fired = d->fired;
	if (d->rt)
		unreal(d);
	if (!was)
		vp_enable_self();
	return fired ? -ETIMEDOUT : 0;
}

/*
 * A handler or an asynchronous cancel waits for t (ulib/libc/signal.c's
 * post, pthread_cancel), which was just unblocked. The holder itself
 * (or from another process's interrupt): its VP is interrupted, as
 * rt_interrupt does. Another det thread only computes for all we know
 * and would never get the token: it is taken next (urgent) and the
 * caller lets the token go now, or at its last spin_unlock. Not a
 * service thread: it sleeps again first (it may have more to send), and
 * the token goes to t then.
 */
static void det_interrupt(struct thread *t)
{
	struct uthread *u = (struct uthread *)t;
	struct thread *self = thread_self();
	int was;
	struct vp_page *vpp = vp_disable_save_self(&was);
	if (t == self || (struct thread *)vpp->current_thread == t) {
		if (!was)
			vp_enable_self();
		rt_interrupt(t);
		return;
	}
	int moved = rtq_take(&runq, u) || rtq_take(&urgent, u);
	if (moved) {
		rtq_push(&urgent, u, 0);
		unquiet();
	}
	if (!was)
		vp_enable_self();
	if (!moved || !self || was || service((struct uthread *)self))
		return;
	if (!self->crit)
		thread_yield();
	else if (!self->yield_due)
		self->yield_due = YIELD_DUE_THREAD;
}

/*
 * After a turn that kept the token: how many more in a row would keep
 * it too, were they det_turn's (nothing queued meanwhile: an urgent
 * push ends them), the holder may take quietly (fence_quiet). Before
 * the time slice's end and before the first timed wait's deadline
 * (turn j of them sees ticks + j - 1); none while a service thread
 * waits on real time (real_due reads the clock) or an urgent one is
 * queued.
 */
static void quiet(struct thread *self)
{
	uint64_t k = TURN_SLICE - 1 - (turns < TURN_SLICE ? turns : TURN_SLICE - 1);
	if (urgent.len || rtimed)
		k = 0;
	if (timed && k > 0)
		k = timed->deadline <= ticks + 1 ? 0 :
		    (timed->deadline - ticks - 1 < k ? timed->deadline - ticks - 1 : k);
	granted = (long)k;
	__fence_quiet_left = (long)k;
	__fence_quiet_by = self;
}

/*
 * thread_ops.turn, and the end of a FENCED_SYNC call (det_fence): the
 * holder did a synchronization or signal operation that neither blocked
 * nor yielded (sem_post, a mutex unlock, a condition's signal...,
 * pthread_kill, raise, kill, pthread_sigmask). It is a tick of logical time, as a yield that finds
 * nobody: a thread that loops on them while another sleeps lets that
 * sleep time out (the waiter then gets the token, deterministically).
 * The token itself moves on only when something waits for it (a timed
 * wait due, an urgent thread, a due timer) or once the holder has taken
 * TURN_SLICE turns in a row without it moving: a logical time slice, so
 * a loop on these calls lets the run queue's threads run too. Not at
 * every turn: a turn that handed the token to a thread that only
 * computes lost it for good (no time slices: only a timer or a signal
 * takes it back), so a program whose thread made one such call on its
 * way (sigcomp's pure: W's pthread_sigmask before the kill main waited
 * for) hung where a plain program, or Linux, goes on. Not in a spin
 * lock (at its release), with the VP disabled, or in a service thread
 * (its turns are not the program's). Most turns that keep the token are
 * quiet: the holder takes them without coming here (quiet, settle).
 */
static void det_turn(struct thread *self)
{
	static uint64_t moves_seen;      /* st.moves at the last turn */
	int was, e = errno;
	vp_disable_save_self(&was);
	if (was || service((struct uthread *)self)) {
		if (!was)
			vp_enable_self();
		return;
	}
	settle();
	if (st.moves != moves_seen)
		turns = 0;
	int pass = ++turns >= TURN_SLICE || urgent.len || real_due() ||
		   (timed && timed->deadline <= ticks + 1);
	if (!pass) {
		ticks++;                 /* (as pick() counts a yield) */
		st.yields++;
		quiet(self);
	} else
		turns = 0;
	moves_seen = st.moves;
	vp_enable_self();
	if (!pass)
		return;
	if (self->crit) {
		if (!self->yield_due)
			self->yield_due = YIELD_DUE_THREAD;
		return;
	}
	rt_yield(self);
	errno = e;                       /* (a handler run meanwhile keeps ours) */
}

/*
 * The fence hook (<animart/fence.h>), serial det's: it declines every
 * call but a synchronization that does not block where uncontended
 * (FENCED_SYNC: a mutex unlock or trylock, a condition's signal or
 * broadcast, a rwlock's unlock or try, a barrier, sem_post), whose end
 * is a turn. A thread that polls for another through them (lock; look;
 * unlock) kept the token for good: a hang, where Linux finishes. With
 * <pthread.h>'s inline unlock off (det_run), an uncontended unlock is
 * the library's too. FENCED's calls never come here (__fence_sync_only),
 * nor quiet turns (fence_quiet). in_sync: the thread inside such a
 * call, whose inner call (FENCED_SYNC's) goes on as usual. Declined for
 * threads of other packages and outside threads.
 */
static struct thread *in_sync;
static int det_fence(int enter)
{
	struct thread *self = thread_self();
	if (!self || self->ops != &det.ops)
		return 0;
	if (enter == FENCE_SYNC) {
		if (in_sync == self)
			return 0;
		in_sync = self;
		return 1;
	}
	if (enter)
		return 0;
	in_sync = 0;
	det_turn(self);
	return 0;
}

/* The token holder exits: off the live list. */
static __attribute__((noreturn)) void det_exit(struct thread *self)
{
	struct dthr *d = dthr_of((struct uthread *)self);
	int was;
	vp_disable_save_self(&was);
	for (struct dthr **pp = &live; *pp; pp = &(*pp)->next)
		if (*pp == d) {
			*pp = d->next;
			break;
		}
	if (!was)
		vp_enable_self();
	rt_exit(self);
}

/* A fork's child: the other threads are not in it; the forking one is
   its only live thread. */
static void fork_reset(void)
{
	runq = urgent = (struct rtq){ 0 };
	aside = yielder = 0;
	live = timed = rtimed = 0;
}

static void det_fork_child(struct thread *self)
{
	rt_fork_child(self);
	struct dthr *d = dthr_of((struct uthread *)self);
	d->next = 0;
	d->deadline = 0;
	d->rt = 0;
	live = d;
}

static struct rtpkg det = {
	/* RT_OPS but its own timed wait, interrupt and exit (the lists above). */
	.ops = { .name = PKG_NAME, .block = rt_block, .unblock = rt_unblock,
		 .block_until = det_block_until, .interrupt = det_interrupt,
		 .yield = rt_yield, .exit = det_exit, .free = rt_free,
		 .cputime = rt_cputime, .setprio = rt_setprio,
		 .fork_child = det_fork_child, .own_time = 1, .turn = det_turn },
	.fork_reset = fork_reset,
	.classic = 1,
	.no_band = 1,                 /* the token's order is the order */
	.enqueue = enqueue,
	.pick = pick,
};

/* At exit: how often the token moved (every switch of thread: DTHREADS's
   transactions, all of them serial here: tx, with no pages committed),
   the yields, the timed waits that timed out, the threads made; the same
   figures every run. Then the time from the start, all of it serial
   (detreport's serial share: par.c reports both phases). */
static uint64_t t_start;
static void det_report(void)
{
	settle();
	printf("@result {\"name\":\"det.stats\",\"moves\":%lu,\"yields\":%lu,"
	       "\"timeouts\":%lu,\"threads\":%lu,\"tx\":%lu,\"commit_pages\":0,"
	       "\"serial_ns\":%lu,\"parallel_ns\":0}\n", (unsigned long)st.moves,
	       (unsigned long)st.yields, (unsigned long)st.timeouts,
	       (unsigned long)st.created, (unsigned long)st.moves,
	       (unsigned long)(now_ns() - t_start));
}

/* Always one VP: see the top. */
static __attribute__((noreturn)) void det_run(int n, void *(*f)(void *), void *a)
{
	(void)n;
	if (det_par)
		par_run(f, a);       /* det=par: par.c */
	atexit(det_report);
	t_start = now_ns();
	__fence_sync_only = 1;       /* (det_fence declines the rest) */
	__fence_hook = det_fence;
	/* <pthread.h>'s inline unlock fails (held -1): the library's, a
	   turn (FENCED_SYNC; quiet: fence_quiet). A lock is no turn: the
	   inline one stays (par_run routes both). */
	__fence_mx_held = -1;
	rt_run(&det, 1, f, a);
}

static struct thread *det_create(void *(*f)(void *), void *a, const struct thread_attr *at)
{
	if (det_par)
		return par_create(f, a, at);
	return rt_create(&det, f, a, at);
}

static int det_add_vps(int n)
{
	(void)n;
	return 0;
}

const struct pkg PKG_SELF = { .name = PKG_NAME, .run = det_run,
	.create = det_create, .add_vps = det_add_vps, .attrs = PKG_ATTR_STACK };
