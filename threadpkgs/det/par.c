/*
 * det=par: det with DTHREADS's parallel phase (Liu, Curtsinger, Berger,
 * SOSP '11). `pkg=det det=par` on the command line picks it; plain
 * `pkg=det` stays the serial package of det.c.
 *
 * Threads run at once, each alone on a classic VP of its own, in an
 * isolated view (kernel/view.c) of the program's data: the range the link
 * map keeps for the program's own objects (__prog_data.. in ulib/user.ld,
 * nothing of the runtime's in it). Between synchronizations a thread's
 * stores there are its own; every read sees what the last serial phase
 * left, or its own stores. The heap (heap.c) is in every view too, and
 * each thread mallocs from an arena of its own without a fence. Every
 * synchronization, console write, rand, and every system call whose
 * order another thread can see (files, pipes, fork, the clocks:
 * docs/posix.md) is a fence (<animart/fence.h>): the thread stops
 * there. Once
 * every thread of the parallel phase has stopped, the serial phase
 * passes a token through them in a fixed order (the order they finished
 * their previous serial turns: round robin); the holder commits its
 * view (its changed bytes go into the space: on one byte the later turn
 * wins), does its operation, commits what the operation wrote, and
 * passes the token on. A thread the operation wakes (a mutex unlocked, a
 * condition signalled, a join ended) joins the token's queue where it is
 * woken; one that blocks gives the token up. When the token has been
 * round, every thread that finished its turn starts the next parallel
 * phase from the same memory. So what each thread reads, and the order
 * of every operation, is a function of the program alone, races
 * included: nobody commits while anybody computes.
 *
 * Where it differs from DTHREADS: memory outside the program's data
 * and heap (stacks, the libraries' own data) is shared directly, not
 * isolated: a program that races on a stack is not made deterministic.
 * malloc's central lists (the runtime's own blocks, made inside serial
 * operations) serve in the token's order only. Timed waits time out only when no
 * thread can run otherwise (the earliest begun first), then sleep out
 * their real deadline holding the token.
 */
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/rtq.h>
#include <animart/fence.h>
#include <anima/view.h>
#include "par.h"
#include "heap.h"
#include "deadlock.h"

#define DET_SPIN 87                  /* a thread that never reaches a fence (report_spin) */
#define TICKS_PER_MS 20              /* as det.c's: a timed wait's ms, in token moves */
#define DET_BATCH 16                 /* children a create's turn makes at most (par_create) */

extern char __prog_data[], __prog_data_end[];
extern int malloc_central_only;
extern volatile int pcancel_any;     /* ulib/pthread: every condition wait takes its fenced path */
int __pt_making_service(void) __attribute__((weak));   /* ulib/pthread: a service thread is made */

int det_par;                         /* `det=par` (ulib/pthread/pstart.c) */
int det_spin_s = 60;                 /* `detspin=S`: report a thread S s past the others' fences (0: never) */

enum { P_WAIT, P_PAR, P_ARRIVED, P_TQ, P_HOLD, P_BLOCKED, P_DEAD };

struct pthr {
	volatile uint32_t st;        /* P_*: the thread waits for its next state */
	volatile int sleeping;       /* in the kernel on st: wake it */
	int in_op;                   /* inside a fenced operation (holds the token) */
	int pend;                    /* ... one the POSIX layer goes on with unfenced */
	int keep;                    /* ... whose next fence is the library's malloc */
	int made;                    /* threads it made since it last got the token */
	int timed, fired;            /* in a timed wait; it timed out */
	uint64_t due;                /* its timed wait's end, in ticks */
	uint64_t real;               /* ... and in real time (now_ns) */
	struct uthread *t;
	void *(*fn)(void *);
	void *arg;
	struct pthr *next;           /* on waitl, runl or tq */
	struct pthr *tnext;          /* on timedl */
	struct pthr *lnext;          /* on live */
	void *arena;                 /* its heap (heap.c) */
};

struct dvp {
	struct rtvp v;               /* first: the runtime's */
	int inview;                  /* this VP entered its view */
	int pieces;                  /* ... and that many of the heap's (heap_pieces) */
	/* The holder that left this VP blocking or exiting: its token moves
	   on once it is parked or its exit complete (check_passing). */
	struct pthr *leaving;
	int exiting;
};

/* Under g: the lists. Threads wait on their own st word (one VP each). */
static struct spin g;
static struct pthr *waitl, **waitt = &waitl;   /* for the next parallel phase */
static struct pthr *runl;                      /* in the parallel phase now */
static struct pthr *tq, **tqt = &tq;           /* the token's queue */
static struct pthr *timedl;
static struct pthr *late, **latet = &late;     /* timed out by ticks: the next serial phase's */
static struct pthr *live;
static struct pthr *holder;
static struct pthr *spare;                     /* joined threads' records, for reuse */
static int nrun, nlive, nvps, deadlocked;
static int idle_real;                          /* next_token left timedl to real time */
static int nsvc;                               /* service threads (svc_create) */
static int svc_timed;                          /* ... of them in a timed wait, running or woken */
#define NSVC 8
static struct { struct thread *t; int idle; } svcs[NSVC];   /* (idle: in an untimed block) */
static struct pthr mainrec;
static struct rtq q;                           /* det threads for any idle VP */
static struct rtq sq;                          /* service threads (svc_create): see pick */
static struct rtpkg par;
static uint64_t phase_t0;
static uint64_t ticks;                         /* logical time: the token's moves */
static struct pthr *last_holder;                /* (for ps.handoffs) */
static uint64_t last_arrival;                  /* a parallel phase's latest arrival at a fence */
/* det.stats (par_report): transactions (a thread's parallel stint,
   committed), pages committed, token moves, parallel phases, and the
   time in either phase. All but the times and enters are the same
   every run. */
static struct {
	uint64_t tx, pages, moves, phases, serial_ns, parallel_ns, threads;
	uint64_t solo, widest, enters;   /* solo fences, most threads of a phase, views entered */
	uint64_t handoffs;               /* moves to another thread than the last holder */
} ps;

static void *par_start(void *arg);

static struct pthr *me_of(struct thread *s)
{
	if (!s || s->ops != &par.ops)
		return 0;
	struct uthread *u = (struct uthread *)s;
	if (u->fn == par_start) {    /* (a pooled descriptor's record may be another's now) */
		struct pthr *p = u->arg;
		return p->t == u ? p : 0;
	}
	return u == mainrec.t ? &mainrec : 0;
}

static void set_st(struct pthr *p, uint32_t s)
{
	__atomic_store_n(&p->st, s, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&p->sleeping, __ATOMIC_SEQ_CST))
		syscall2(SYS_futex_wake, &p->st, 1);
}

/* Wait on our VP until our state is s: a short spin, then the kernel.
   The spin is on plain loads, no PAUSE: under QEMU's multi-threaded TCG
   a PAUSE ends the vCPU's turn and takes the global lock (kernel/
   idlepoll.c), so 256 of them, at every wait of every VP, held up the
   other vCPU's IPIs and timers, the token's hand-off among them
   (kmeans at 2 CPUs wall, 4 threads, scale 4, five pairs side by
   side in two boots at host load 9: 1,428/637, 803/775, 1,341/542,
   1,853/1,119, 848/736 ms with/without). */
static void wait_st(struct pthr *p, uint32_t s)
{
	for (int i = 0; i < 256; i++) {
		if (__atomic_load_n(&p->st, __ATOMIC_ACQUIRE) == s) {
			par_cover();
			return;
		}
		__asm__ volatile("" ::: "memory");
	}
	for (;;) {
		__atomic_store_n(&p->sleeping, 1, __ATOMIC_SEQ_CST);
		uint32_t now = __atomic_load_n(&p->st, __ATOMIC_SEQ_CST);
		if (now == s)
			break;
		syscall3(SYS_futex_wait, &p->st, now, 0);
	}
	__atomic_store_n(&p->sleeping, 0, __ATOMIC_RELAXED);
	par_cover();
}

static void push(struct pthr ***tail, struct pthr *p)
{
	p->next = 0;
	**tail = p;
	*tail = &p->next;
}

static void ensure_view(void)
{
	struct dvp *d = (struct dvp *)rt_vp_here(&par);
	uint64_t len = (uint64_t)(__prog_data_end - __prog_data);
	if (!d || d->inview || !len)
		return;
	long r = syscall2(SYS_view_enter, (uint64_t)__prog_data, len);
	if (r < 0) {
		printf("det: cannot enter a view of the program's data (%ld)\n", r);
		exit(70);
	}
	d->inview = 1;
	d->pieces = 0;
	par_cover();
	__atomic_fetch_add(&ps.enters, 1, __ATOMIC_RELAXED);   /* (VPs start at once) */
}

/* The calling VP's view takes the heap's pieces handed out so far
   (heap.c): after every wait for the token or a parallel phase, since
   whoever held the token meanwhile may have moved the heap's top and
   committed pointers past it, and after the caller's own grab. */
void par_cover(void)
{
	struct dvp *d = (struct dvp *)rt_vp_here(&par);
	if (!d || !d->inview)
		return;
	for (int n = heap_pieces(); d->pieces < n; d->pieces++)
		heap_enter(d->pieces);
}

/* heap.c: the caller's arena slot, if it is a det thread; between: not
   inside an operation (its mallocs there are its own, with no turn). */
void **par_arena(int *between)
{
	struct pthr *me = me_of(thread_self());
	*between = me && !me->in_op;
	return me ? &me->arena : 0;
}

/* heap.c: the caller's malloc goes to the library's lists, and fences
   next. In a create's turn (pend) that fence goes on in the turn: so
   pthread_create's records cost no round of the token, and a thread
   makes its children in one turn, as DTHREADS does; before, each
   create's calloc ended the turn, and main could make the next child
   only once the last had run to its first fence (its whole share of
   the work, in the Phoenix programs). */
void par_central(void)
{
	struct pthr *me = me_of(thread_self());
	if (me && me->in_op && me->pend)
		me->keep = 1;
}

/* A forking thread's VP gives its view back (the kernel forks no VP in
   a view) and enters a fresh one after (ensure_view). An exiting
   thread's VP keeps its view, committed, for the next thread it runs:
   a view_enter builds the tables of every range again (kmeans makes
   and joins 4 threads a round). */
static void leave_view(void)
{
	struct dvp *d = (struct dvp *)rt_vp_here(&par);
	if (d && d->inview) {
		syscall0(SYS_view_leave);
		d->inview = 0;
	}
}

/* The holder's stores go into the space (only a holder commits). A VP
   without a view (main before its first create) has none to commit. */
static void commit(void)
{
	struct dvp *d = (struct dvp *)rt_vp_here(&par);
	if (d && !d->inview)
		return;
	long n = syscall0(SYS_view_commit);
	if (n > 0)
		ps.pages += (uint64_t)n;
}

static void phase_time(uint64_t *acc)
{
	uint64_t now = now_ns();
	*acc += now - phase_t0;
	phase_t0 = now;
}

/* Under g, with nobody in a parallel phase and no holder: the next
   holder, or else the next parallel phase, or else a timed waiter times
   out; with none of them, every live thread is blocked. */
static void fire(struct pthr ***q);
static void next_token(void)
{
	ticks++;
	while (timedl && timedl->due <= ticks)
		fire(&latet);
	for (;;) {
		struct pthr *h = tq;
		if (h) {
			if (!(tq = h->next))
				tqt = &tq;
			holder = h;
			ps.moves++;
			if (h != last_holder)
				ps.handoffs++;   /* another thread's VP wakes for it */
			last_holder = h;
			set_st(h, P_HOLD);
			return;
		}
		holder = 0;
		if (late && !waitl) {    /* (no parallel phase to wait for) */
			tq = late;
			tqt = latet;
			late = 0;
			latet = &late;
			continue;
		}
		if (waitl) {
			phase_time(&ps.serial_ns);
			ps.phases++;
			runl = waitl;
			waitl = 0;
			waitt = &waitl;
			nrun = 0;
			for (struct pthr *p = runl; p; p = p->next)
				nrun++;
			if ((uint64_t)nrun > ps.widest)
				ps.widest = (uint64_t)nrun;
			for (struct pthr *p = runl; p; p = p->next)
				set_st(p, P_PAR);
			return;
		}
		if (!timedl) {
			deadlocked = nlive > 0;
			return;
		}
		if (__atomic_load_n(&svc_timed, __ATOMIC_ACQUIRE) && now_ns() < timedl->real) {
			idle_real = 1;           /* (pass_on waits: outside_wait) */
			return;
		}
		if (timedl->due > ticks)
			ticks = timedl->due;     /* nothing else can happen before it */
		fire(&tqt);
	}
}

/* Under g: p leaves the timed list (woken before its time). */
static void untime(struct pthr *p)
{
	if (!p->timed)
		return;
	for (struct pthr **pp = &timedl; *pp; pp = &(*pp)->tnext)
		if (*pp == p) {
			*pp = p->tnext;
			break;
		}
	p->timed = 0;
}

/*
 * Under g: the earliest timed waiter times out: into queue q (it is
 * parked: its holder's turn ended once it was). One that the token's
 * moves timed out (next_token) goes on late, which the next serial phase
 * takes after the parallel phase's threads (serial_start), not on this
 * one's queue: each of its turns is a move, so enough waiters that look
 * again every few moves (pshown.c's polls: 100 ticks each) kept the
 * queue from ever emptying, and no parallel phase came again (the public
 * suite's pthread_cond_broadcast 1-2: 128 process-shared waiters hung
 * the program's main thread for ever, progs/posix/pshbcast).
 */
static void fire(struct pthr ***q)
{
	struct pthr *p = timedl;
	timedl = p->tnext;
	p->timed = 0;
	p->fired = 1;
	p->st = P_TQ;
	push(q, p);
	int expect = PARK_PARKED;    /* as thread_unblock, whose unblock op takes g */
	if (__atomic_compare_exchange_n(&p->t->t.park, &expect, PARK_RUN, 0, __ATOMIC_SEQ_CST,
					__ATOMIC_RELAXED))
		rt_unblock(&p->t->t);
}

/* Under g: the parallel phase is over; the token goes round its
   threads in their order (then any woken from outside meanwhile). */
static void serial_start(void)
{
	phase_time(&ps.parallel_ns);
	struct pthr **pp = &runl, *rest = tq;
	while (*pp)
		pp = &(*pp)->next;
	if (late) {                  /* the timed out: after the phase's threads */
		*pp = late;
		pp = latet;
		late = 0;
		latet = &late;
	}
	*pp = rest;
	tq = runl;
	if (!rest)
		tqt = pp;
	runl = 0;
	next_token();
}

static void each_live(det_say say)
{
	for (struct pthr *d = live; d; d = d->lnext)
		say(d->t, d == live);
}

static __attribute__((noreturn)) void report_deadlock(void)
{
	static int once;
	if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
		for (;;)
			sys_sleep(1000000000);   /* the first to see it reports */
	__fence_hook = 0;            /* the end: print and go, no more turns */
	det_deadlock(each_live);
}

/*
 * Under g, every live thread blocked (deadlocked), or only timed waiters
 * left with a service thread alive (idle_real): wait for a wake-up from
 * outside. Deadlocked: up to DEADLOCK_NS before the verdict, as plain
 * det does (det.c's nobody): a signal from another process whose
 * handler posts the semaphore a lone sem_wait waits on, or ends that
 * wait with EINTR. Such signals are taken here (the VP's loop, holding
 * no thread, or the last thread in its block), and their posts queue
 * the woken thread through par_unblock, which passes the token. Before,
 * det=par called it a deadlock at once. idle_real: up to the first
 * timed waiter's real deadline. A service thread (alarm's, setitimer's
 * and timer_create's timer thread) runs on real time off the token, and
 * what it does (a SIGEV_THREAD thread made, a signal whose handler
 * posts) may end the wait: timed out at once on logical time, the
 * waiter slept out its real deadline holding the token, and the thread
 * the timer made ran only after it (timers' test_thread: sem_timedwait
 * timed out after 3 s, and that timer's threads, one every 20 ms, piled
 * up). Nonzero: something moved (g held again, no verdict). Only host
 * time decides here, and only in a run whose threads can all only be
 * woken from outside.
 */
static int outside_wait(void)
{
	int timed = idle_real;
	uint64_t until = timed ? timedl->real : now_ns() + DEADLOCK_NS;
	deadlocked = idle_real = 0;      /* (par_unblock's pass_on meanwhile: no verdict) */
	for (;;) {
		spin_unlock_by(&g, 0);
		if (thread_kern_sigs && thread_signal_dispatch)
			thread_signal_dispatch();
		uint64_t now = now_ns();
		if (now < until) {
			uint32_t z = 0;  /* (a nap nobody wakes: a signal cuts it) */
			if (syscall3(SYS_futex_wait, &z, 0, until - now < 10000000 ? until - now : 10000000) == -EINTR)
				thread_kern_sigs = 1;
		}
		spin_lock_by(&g, 0);
		if (holder || tq || late || waitl || runl || !nlive || (!timed && timedl))
			return 1;
		if (timed && !timedl)
			return 1;            /* (another's pass_on took it) */
		now = now_ns();
		if (timed) {
			until = timedl->real;
			if (!__atomic_load_n(&svc_timed, __ATOMIC_ACQUIRE))
				until = 0;       /* no timer armed now: logical time again */
		} else if (__atomic_load_n(&svc_timed, __ATOMIC_ACQUIRE))
			until = now + DEADLOCK_NS;   /* a timer armed: its signal may come */
		if (now >= until) {
			deadlocked = !timed;
			return 0;
		}
	}
}

/* Under g: next_token and its verdict; or, with only timed waiters
   left to real time (idle_real), their wait, then the first times out. */
static void pass_on(void)
{
	next_token();
	while (deadlocked || idle_real) {
		int timed = idle_real;
		if (outside_wait())
			return;
		if (!timed) {
			spin_unlock_by(&g, 0);
			report_deadlock();
		}
		if (timedl->due > ticks)
			ticks = timedl->due;
		fire(&tqt);
		next_token();
	}
}

/*
 * A thread at a fence waits for its turn; past det_spin_s seconds in
 * which no other thread of the parallel phase arrived, the ones still
 * running are taken to spin on memory their view keeps still (a flag
 * another thread would set at its next synchronization: outside
 * DTHREADS's model, docs/posix.md). The program ends (DET_SPIN) naming
 * them, rather than hang. Host time decides only when a program that
 * would never end is ended (or one whose thread computes alone that
 * long: detspin=0 turns the check off).
 */
static __attribute__((noreturn)) void report_spin(void)
{
	static int once;
	if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
		for (;;)
			sys_sleep(1000000000);
	__fence_hook = 0;
	printf("det: thread(s) ran %d s past every other thread's synchronization without "
	       "reaching one (spinning on a shared flag? det=par does not cover it):", det_spin_s);
	for (struct pthr *p = runl; p; p = p->next)
		if (p->st == P_PAR)
			printf(" %lu", (unsigned long)p->t->t.id);
	printf("\n@result {\"name\":\"det.spin\",\"running\":[");
	const char *sep = "";
	for (struct pthr *p = runl; p; p = p->next)
		if (p->st == P_PAR) {
			printf("%s%lu", sep, (unsigned long)p->t->t.id);
			sep = ",";
		}
	printf("]}\n");
	exit(DET_SPIN);
}

static void spin_check(void)
{
	spin_lock_by(&g, 0);
	int stuck = nrun > 0 && !holder && det_spin_s > 0 &&
		    now_ns() - last_arrival > (uint64_t)det_spin_s * 1000000000;
	if (!stuck)
		spin_unlock_by(&g, 0);
	else
		report_spin();           /* (holding g: nobody moves meanwhile) */
}

/* wait_st(me, P_HOLD), looking every second for a spinning thread. */
static void wait_hold(struct pthr *me)
{
	for (;;) {
		__atomic_store_n(&me->sleeping, 1, __ATOMIC_SEQ_CST);
		uint32_t now = __atomic_load_n(&me->st, __ATOMIC_SEQ_CST);
		if (now == P_HOLD)
			break;
		if (syscall3(SYS_futex_wait, &me->st, now, 1000000000) == -ETIMEDOUT)
			spin_check();
	}
	__atomic_store_n(&me->sleeping, 0, __ATOMIC_RELAXED);
	par_cover();
}

/*
 * A signal handler (or an asynchronous cancel) waits while its thread is
 * inside det's own hand-off, as inside a spin lock (crit): from its
 * arrival at a fence until it holds the token, and from the end of its
 * operation until its next parallel phase, and while it is parked in
 * block_core. The handler's own fences (sem_post in it, printf) would
 * otherwise start or end a turn in the middle of one: run as a thread
 * parked in a pthread_join that a create's turn led into (in_op, pend)
 * was resumed, its sem_post ended that turn there (fence_end, then
 * fence_begin: the thread went to waitl and got P_PAR), and block_core
 * then waited for P_HOLD for good, the phase's nrun never reaching 0
 * (progs/posix/fencesig; the public suite's pthread_join 6-3 and
 * pthread_cond_timedwait 4-3, whose handlers sem_post, hung so at -smp
 * 2); run in fence_end's wait for the next phase (in_op 0, the thread
 * on waitl), it would count the thread's arrival twice. unguard runs
 * what waited, as the last spin_unlock does, where the thread either
 * computes (its handler's fences take turns of their own) or holds the
 * token inside its operation (they go on in it).
 */
static void guard(struct pthr *me)
{
	me->t->t.crit++;
}

static void unguard(struct pthr *me)
{
	struct thread *t = &me->t->t;
	if (--t->crit == 0 && t->yield_due)
		spin_yield_due(t);
}

/* A running thread stops at a fence; returns holding the token, with
   its stores of the parallel phase committed. */
static void fence_begin(struct pthr *me)
{
	spin_lock_by(&g, 0);
	me->st = P_ARRIVED;
	if (--nrun == 0)
		serial_start();
	else
		last_arrival = now_ns();
	spin_unlock_by(&g, 0);
	wait_hold(me);
	me->made = 0;
	ps.tx++;
	commit();
}

/* The holder's operation is done: commit it, pass the token, and wait
   for the next parallel phase. */
static void fence_end(struct pthr *me)
{
	commit();
	spin_lock_by(&g, 0);
	me->st = P_WAIT;
	push(&waitt, me);
	pass_on();
	spin_unlock_by(&g, 0);
	wait_st(me, P_PAR);
}

/*
 * DTHREADS's single-threaded execution: while the caller is the
 * program's only live thread (before its first create, after its last
 * join) and runs, a fence needs no turn: nobody else computes, commits
 * or waits for it, and only it can change that (a create takes a turn
 * of its own). Its stores so far are committed (in a view, once it has
 * one), which keeps its private pages to one transaction's, as a turn
 * would. (With me P_PAR there is no holder: nobody else changes the
 * lists; g for the reading all the same.)
 */
static int solo(struct pthr *me)
{
	spin_lock_by(&g, 0);
	int one = nlive == 1 && me->st == P_PAR && !holder && !tq && !late && !timedl;
	spin_unlock_by(&g, 0);
	if (one) {
		ps.solo++;
		commit();
	}
	return one;
}

static int fence(struct pthr *me, int enter)
{
	if (enter) {
		if (me->in_op && me->pend && me->keep) {
			me->keep = 0;    /* (par_central) */
			return 0;
		}
		if (me->in_op && me->pend) {
			me->pend = 0;    /* the turn a create or free began ends here */
			fence_end(me);
			fence_begin(me);
			return 1;
		}
		if (me->in_op || solo(me))
			return 0;
		me->in_op = 1;
		fence_begin(me);
		return 1;
	}
	me->in_op = 0;
	fence_end(me);
	return 0;
}

static int par_fence(int enter)
{
	struct pthr *me = me_of(thread_self());
	if (!me)
		return 0;
	guard(me);
	int r = fence(me, enter);
	unguard(me);
	return r;
}

/*
 * A holder that blocks or exits keeps the token until it is off its VP
 * for good: parked (the runtime's park committed, so any wake-up from
 * now on goes through par_unblock and the token's queue), or its exit
 * complete (its joiner told). Then whoever runs on that VP next (the
 * scheduler loop's pick, or the thread it switches to) moves the token
 * on. A park that failed (a permit was waiting) leaves the holder
 * running with its token. Passing any earlier let a wake-up find the
 * thread not yet parked: it left a permit instead of queueing it, and
 * the order of the token's queue, or the verdict "deadlock", depended
 * on when the thread got to consume it.
 */
static void check_passing(void)
{
	struct dvp *d = (struct dvp *)rt_vp_here(&par);
	struct pthr *p = d ? d->leaving : 0;
	if (!p)
		return;
	d->leaving = 0;
	if (!d->exiting && __atomic_load_n(&p->t->t.park, __ATOMIC_ACQUIRE) != PARK_PARKED)
		return;                  /* it runs on, holding the token */
	spin_lock_by(&g, 0);
	if (!d->exiting)
		p->st = P_BLOCKED;
	pass_on();
	spin_unlock_by(&g, 0);
}

/* The holder blocks inside its operation: commit, park (the token moves
   on once it is parked); woken, wait in the token's queue for a turn. */
static void block_core(struct pthr *me)
{
	commit();
	struct dvp *d = (struct dvp *)rt_vp_here(&par);
	d->leaving = me;
	d->exiting = 0;
	guard(me);                   /* (before the park: see guard) */
	rt_park(&me->t->t);
	check_passing();             /* (ours, if the park failed) */
	ensure_view();
	spin_lock_by(&g, 0);
	if (me->st == P_BLOCKED) {   /* woken by no det thread: queue ourselves */
		untime(me);
		me->st = P_TQ;
		push(&tqt, me);
		if (!holder && !nrun)
			pass_on();
	}
	spin_unlock_by(&g, 0);
	wait_st(me, P_HOLD);
	me->made = 0;
	unguard(me);
}

/*
 * A service thread's untimed block makes it idle (no wake-up of det
 * threads can come from it), until it is woken: counted active again by
 * its waker (par_unblock), before it runs, since the waker (main's
 * timer_settime) may block at once in a timed wait that must see it
 * (outside_wait: it timed out at once on logical time and slept its 3
 * s holding the token, the SIGEV_THREAD thread waiting behind it).
 * Past NSVC service threads, a thread is taken to be always active.
 */
static int svc_slot(struct thread *t)
{
	for (int i = 0; i < NSVC; i++)
		if (__atomic_load_n(&svcs[i].t, __ATOMIC_ACQUIRE) == t)
			return i;
	return -1;
}

static void svc_idle(struct thread *t, int idle)
{
	int i = svc_slot(t), from = !idle;
	if (i >= 0 && __atomic_compare_exchange_n(&svcs[i].idle, &from, idle, 0, __ATOMIC_ACQ_REL,
						  __ATOMIC_ACQUIRE))
		__atomic_fetch_add(&svc_timed, idle ? -1 : 1, __ATOMIC_ACQ_REL);
}

static void par_block(struct thread *self)
{
	struct pthr *me = me_of(self);
	if (!me) {
		svc_idle(self, 1);
		rt_block(self);
		svc_idle(self, 0);
		return;
	}
	int f = !me->in_op;
	if (f) {
		guard(me);
		me->in_op = 1;
		fence_begin(me);
		unguard(me);
	}
	block_core(me);
	if (f) {
		guard(me);
		me->in_op = 0;
		fence_end(me);
		unguard(me);
	}
	thread_async_back(self);
}

static void par_unblock(struct thread *t)
{
	struct pthr *p = me_of(t);
	if (p) {
		spin_lock_by(&g, 0);
		if (p->st == P_BLOCKED) {
			untime(p);
			p->st = P_TQ;
			push(&tqt, p);
			if (!holder && !nrun)
				pass_on();
		}
		spin_unlock_by(&g, 0);
	} else
		svc_idle(t, 0);
	rt_unblock(t);
}

/*
 * A timed-out waiter sleeps the rest of its real deadline in the kernel,
 * in its operation (the token's order already moved on: it owes no
 * turn). r is what that sleep returned. Another process's signal cuts it
 * short (-EINTR), and an interrupt does not take the signal inside a
 * wait of the POSIX layer (intr_run: async_hold), so take it here: its
 * post to a thread that takes it sets that thread's sigpend. Nonzero,
 * the wait ends early and its caller runs the handler and says EINTR,
 * as on Linux (sleeps, sem_timedwait), only when sigpend moved from sp
 * AND a signal from another process was taken since (thread_outside_sigs
 * moved from out): the process's own signals (kill of its pid,
 * pthread_kill, its timers) cut the sleep too, and ending the wait for
 * them made when it ends, and the turns after it, depend on host time
 * (the public suite's pthread_join 6-3 and pthread_cond_timedwait 4-3
 * timed out at -smp 2): they wait for the deadline, as before.
 */
static int outside_cut(struct thread *t, int sp, unsigned out, long r)
{
	if (r != -EINTR)
		return 0;
	if (thread_kern_sigs && thread_signal_dispatch)
		thread_signal_dispatch();
	return __atomic_load_n(&thread_outside_sigs, __ATOMIC_SEQ_CST) != out &&
	       __atomic_load_n(&t->sigpend, __ATOMIC_ACQUIRE) != sp;
}

static int par_block_until(struct thread *self, uint64_t deadline)
{
	struct pthr *me = me_of(self);
	if (!me)
		return rt_block_until(self, deadline);
	int f = !me->in_op;
	if (f) {
		guard(me);
		me->in_op = 1;
		fence_begin(me);
		unguard(me);
	}
	deadline = dl_boot(deadline);    /* (logical time: a clock set later does not reach it) */
	uint64_t now = now_ns();
	uint64_t ms = deadline > now ? (deadline - now + 500000) / 1000000 : 0;
	spin_lock_by(&g, 0);
	me->due = ticks + (ms ? ms : 1) * TICKS_PER_MS;
	me->real = deadline;
	struct pthr **pp = &timedl;
	while (*pp && (*pp)->due <= me->due)
		pp = &(*pp)->tnext;      /* after equal ones: first come, first out */
	me->tnext = *pp;
	*pp = me;
	me->timed = 1;
	me->fired = 0;
	spin_unlock_by(&g, 0);
	block_core(me);
	spin_lock_by(&g, 0);
	int fired = me->fired;
	untime(me);
	me->fired = 0;
	spin_unlock_by(&g, 0);
	int sp = self->sigpend;
	unsigned out = __atomic_load_n(&thread_outside_sigs, __ATOMIC_SEQ_CST);
	while (fired && (now = now_ns()) < deadline)
		if (outside_cut(self, sp, out, sys_sleep(deadline - now)))
			fired = 0;
	if (f) {
		guard(me);
		me->in_op = 0;
		fence_end(me);
		unguard(me);
	}
	return fired ? -ETIMEDOUT : 0;
}

/* A yield is a fence with no operation: it lets the others' turns
   come. Inside an operation (a spin lock's waiter, which holds the
   token) it ends the turn and waits for the next: the others run a
   parallel phase meanwhile, in which the lock's holder can let go. */
static void par_yield(struct thread *self)
{
	struct pthr *me = me_of(self);
	if (!me) {
		rt_yield(self);
		return;
	}
	guard(me);
	if (me->in_op) {
		fence_end(me);
		fence_begin(me);
	} else {
		me->in_op = 1;
		fence_begin(me);
		me->in_op = 0;
		fence_end(me);
	}
	unguard(me);
}

/* thread_ops.turn (det.c's det_turn): a signal operation or a post
   outside a fence is a turn of its own, as a fenced call's (a sem_post
   is one already: in_op); a thread that loops on pthread_sigmask while
   another sleeps used to run its parallel phase for good (a spin, said
   report_spin). Alone, a turn is not needed (solo, as par_fence). */
static void par_turn(struct thread *self)
{
	struct pthr *me = me_of(self);
	if (!me || me->in_op || self->crit || solo(me))
		return;
	par_yield(self);
}

/* An exit is the thread's last turn: commit, queue a joiner that waits
   (the runtime tells it after this), and leave the token to move on
   once the exit is complete (check_passing). */
static __attribute__((noreturn)) void par_exit(struct thread *self)
{
	struct pthr *me = me_of(self);
	if (!me)
		rt_exit(self);
	if (!me->in_op) {
		guard(me);
		me->in_op = 1;
		fence_begin(me);
		unguard(me);
	}
	heap_exit(&me->arena);
	commit();                    /* (its holds and copies go; the VP keeps its view's
					tables for the next thread it runs: ensure_view) */
	spin_lock_by(&g, 0);
	for (struct pthr **pp = &live; *pp; pp = &(*pp)->lnext)
		if (*pp == me) {
			*pp = me->lnext;
			break;
		}
	nlive--;
	me->st = P_DEAD;
	uint64_t j = __atomic_load_n(&self->join, __ATOMIC_ACQUIRE);
	struct pthr *jp = j && j != JOIN_DONE && j != (uint64_t)self ?
			  me_of((struct thread *)j) : 0;
	if (jp && jp->st == P_BLOCKED) {
		jp->st = P_TQ;
		push(&tqt, jp);
	}
	spin_unlock_by(&g, 0);
	struct dvp *d = (struct dvp *)rt_vp_here(&par);
	d->leaving = me;
	d->exiting = 1;
	rt_exit(self);
}

static void *par_main(void *arg);

static struct rtvp *enqueue(struct rtvp *v, struct uthread *t, int why)
{
	(void)v, (void)why;
	int det = t->fn == par_start || t->fn == par_main;   /* (p->t may not be set yet) */
	rtq_push(det ? &q : &sq, t, 0);
	return 0;
}

/*
 * Any thread for any VP: one thread runs on a VP at a time, since a
 * thread waits for its turns on its VP. But a service thread never on a
 * VP whose holder is leaving (blocking or exiting): the token moves on
 * from there once the next det thread or the scheduler loop runs on it
 * (check_passing), and a service thread does neither: it blocked there
 * in its timed waits for good, the token with it (timers' SIGURG and
 * SIGEV_THREAD cases hung so), or a holder woken meanwhile on another
 * VP blocked again, and the stale hand-off passed its token twice (nrun
 * went below 0).
 */
static struct uthread *pick(struct rtvp *v, struct uthread *cur)
{
	struct dvp *d = (struct dvp *)v;
	if (cur)
		return 0;
	if (d->leaving && !rt_running(v))
		check_passing();
	struct uthread *t = rtq_pop(&q);
	if (!t && !d->leaving)
		t = rtq_pop(&sq);
	return t;
}

static void *par_start(void *arg)
{
	struct pthr *me = arg;
	me->t = (struct uthread *)thread_self();
	check_passing();
	ensure_view();
	wait_st(me, P_PAR);
	return me->fn(me->arg);
}

static void *par_main(void *arg)
{
	(void)arg;
	mainrec.t = (struct uthread *)thread_self();
	/* Alone, main needs no view (DTHREADS: single-threaded execution):
	   its stores go straight into the space until its first create
	   (or block), which enters it, so a program's set-up costs no
	   private pages and no commit. */
	spin_lock_by(&g, 0);
	next_token();                /* the first parallel phase: main alone */
	spin_unlock_by(&g, 0);
	__fence_mx_free = __fence_mx_held = -1;   /* <pthread.h>'s inline paths: the library's */
	__fence_hook = par_fence;
	wait_st(&mainrec, P_PAR);
	return mainrec.fn(mainrec.arg);
}

static void par_free(struct thread *t);
static void par_fork_reset(void);
static struct rtpkg par = {
	.ops = { .name = PKG_NAME, .block = par_block, .unblock = par_unblock,
		 .block_until = par_block_until, .interrupt = rt_interrupt,
		 .yield = par_yield, .exit = par_exit, .free = par_free,
		 .cputime = rt_cputime, .setprio = rt_setprio,
		 .fork_child = rt_fork_child, .own_time = 1, .turn = par_turn },
	.fork_reset = par_fork_reset,
	.vp_size = sizeof(struct dvp),
	.classic = 1,
	.no_band = 1,                 /* the token's order is the order */
	.enqueue = enqueue,
	.pick = pick,
};

/*
 * pthread_create's and pthread_join's fast paths call no fenced function
 * of their own (they are held to a count of instructions), and go on
 * after the package's create or free with the new thread's or the
 * joined thread's records. So those calls take the token and keep it
 * (pend) until the thread's next fenced call (but the library's malloc
 * of the layer's records: par_central), or its next block, yield or
 * exit: the layer finishes in the same turn, and the next create or
 * join goes on in it too.
 */
static struct pthr *take_turn(void)
{
	struct pthr *me = me_of(thread_self());
	if (!me)
		return 0;
	guard(me);                   /* (until done_turn: see there) */
	if (!me->in_op) {
		me->in_op = me->pend = 1;
		fence_begin(me);
	}
	return me;
}

/*
 * The package's part of a create or free is done. A signal handler
 * waits until here (guard): its fenced calls (a sem_post) would end the
 * turn in the middle of the package's work (fence's pend case, then its
 * own exit: in_op 0), and the rest ran outside any turn: rt_create's
 * mallocs (the new thread's descriptor, stack, TLS) and new_rec's calloc
 * were served from the creator's own arena, in its view, so the child's
 * st word and saved registers lived in memory another VP saw stale. The
 * public suite's pthread_join 6-3 (creates while two threads flood
 * signals) hung with every VP waiting on an st word at 0x40000100110 in
 * det's heap, or faulted on a register that held a heap address.
 */
static void done_turn(struct pthr *me)
{
	if (me)
		unguard(me);
}

/* A joined (or reaped) thread's record goes to the spare list, never
   back to malloc: a late thread_unblock may still name the exited
   thread, and me_of finds its record through the pooled descriptor
   (as kthread keeps its descriptors). So records are bounded by the
   most threads alive and unjoined at once. */
static void par_free(struct thread *t)
{
	struct pthr *me = take_turn();
	struct pthr *p = me_of(t);
	if (p && p != &mainrec) {
		spin_lock_by(&g, 0);
		p->next = spare;
		spare = p;
		spin_unlock_by(&g, 0);
	}
	rt_free(t);
	done_turn(me);
}

static struct pthr *new_rec(void)
{
	spin_lock_by(&g, 0);
	struct pthr *p = spare;
	if (p)
		spare = p->next;
	spin_unlock_by(&g, 0);
	if (!p)
		return calloc(1, sizeof *p);
	*p = (struct pthr){ .st = P_DEAD };
	return p;
}

static void drop_rec(struct pthr *p)
{
	spin_lock_by(&g, 0);
	p->next = spare;
	spare = p;
	spin_unlock_by(&g, 0);
}

/*
 * A stack the program gave (pthread_attr_setstack) inside the view's
 * range (its heap, its data) would be view memory: a thread's stores
 * there after its block's commit (the park's return address) stay in
 * the VP it left, and it may resume on another VP (the shared run
 * queue), returning to a stale frame (the public suite's pthread_join
 * 4-1: "alternative stack" scenario, a jump to 0 or a false deadlock).
 * Such a thread runs on a stack of the runtime's, of the size asked
 * (docs/posix.md).
 */
static const struct thread_attr *own_stack(const struct thread_attr *at, struct thread_attr *copy)
{
	if (!at || !at->stack_addr)
		return at;
	char *s = at->stack_addr;
	uint64_t n = at->stack_size;
	if (!heap_meets(s, n) && !(s < __prog_data_end && s + n > __prog_data))
		return at;
	*copy = *at;
	copy->stack_addr = 0;
	return copy;
}

/*
 * A service thread of the library (the timer thread of alarm, setitimer
 * and timer_create; mq_notify's: __pt_daemon_once) is no det thread: it
 * takes no turns and waits on real time on a VP of its own, as plain
 * det runs it on real time (det.c). Its deadlines come from outside the
 * program, and its signal must reach a thread that computes in a
 * parallel phase and never fences (the public suite's sched_yield 1-1:
 * a forked child's alarm(2) and a loop; the signal was to end it). As a
 * det thread it waited for a turn that never came: the computing
 * thread held the token, or ran a parallel phase with no end. Its
 * maker still takes a turn (the runtime's records of it come from the
 * central lists, outside any view). Its wake-ups of det threads go
 * through par_unblock, as another process's signal does.
 */
static struct uthread *svc_create(void *(*f)(void *), void *a, const struct thread_attr *at)
{
	spin_lock_by(&g, 0);
	int need = nlive + nsvc + 1 > nvps;
	spin_unlock_by(&g, 0);
	if (need && rt_add_vps(&par, 1) != 1)
		return 0;
	spin_lock_by(&g, 0);
	if (need)
		nvps++;
	spin_unlock_by(&g, 0);
	struct uthread *t = (struct uthread *)rt_create(&par, f, a, at);
	if (t) {
		spin_lock_by(&g, 0);
		for (int i = 0; i < NSVC; i++)
			if (!svcs[i].t) {
				__atomic_store_n(&svcs[i].t, &t->t, __ATOMIC_RELEASE);
				break;
			}
		nsvc++;
		spin_unlock_by(&g, 0);
		__atomic_fetch_add(&svc_timed, 1, __ATOMIC_ACQ_REL);   /* (it runs) */
	}
	return t;
}

/* A VP for one more live thread: every live thread has one (kept: see
   docs/posix.md). 0: none to be had (MAXVP, memory). */
static int vp_room(void)
{
	if (nlive + nsvc + 1 > nvps && rt_add_vps(&par, 1) == 1)
		nvps++;
	return nlive + nsvc + 1 <= nvps;
}

/*
 * A create's turn (pend) makes at most DET_BATCH children, and makes
 * none without a VP for it while it has made some: it ends first, and
 * the maker goes on in its next turn, after the children's (the
 * token's order), once they have run and, if they returned, exited and
 * left their VP. Before, a loop of creates with no other fence (threads
 * detached by attribute, joinable ones joined after) was one turn:
 * none of its children ran before it ended, each held a VP, and past
 * 255 (MAXVP) pthread_create said EAGAIN, where glibc never does
 * (progs/posix/detachloop); and every round of the token went through
 * all of them (widest 256). Both points come from the program's own
 * creates (a count; the live threads against MAXVP), so the order stays
 * a function of the program alone.
 */
static void batch_end(struct pthr *me)
{
	if (!me || !me->pend || !me->made || (me->made < DET_BATCH && vp_room()))
		return;
	if (me->in_op && me->pend) {
		fence_end(me);
		fence_begin(me);     /* (in_op and pend stay: the create goes on) */
		return;
	}
	/* A VP that could not be made ended the turn already: its stack's
	   free is fenced (a fence_end out of turn here left every VP
	   waiting: detachloop 300,hold). Take a turn again, as take_turn. */
	me->in_op = me->pend = 1;
	fence_begin(me);
}

struct thread *par_create(void *(*f)(void *), void *a, const struct thread_attr *at)
{
	struct thread_attr copy;
	at = own_stack(at, &copy);
	struct pthr *maker = take_turn();
	if (__pt_making_service && __pt_making_service()) {
		struct uthread *s = svc_create(f, a, at);
		done_turn(maker);
		return s ? &s->t : 0;
	}
	batch_end(maker);
	if (maker)
		ensure_view();   /* (not a service thread's VP: SIGEV_THREAD's creates) */
	struct pthr *p = new_rec();
	struct uthread *t = 0;
	if (p) {
		p->fn = f;
		p->arg = a;
		p->st = P_WAIT;
		if (!vp_room() || !(t = (struct uthread *)rt_create(&par, par_start, p, at)))
			drop_rec(p);
	}
	if (t) {
		if (maker)
			maker->made++;
		spin_lock_by(&g, 0);
		p->t = t;
		p->lnext = live;
		live = p;
		nlive++;
		ps.threads++;
		push(&waitt, p);
		if (!maker && !holder && !nrun)
			pass_on();   /* a service thread's create (SIGEV_THREAD), all det threads blocked */
		spin_unlock_by(&g, 0);
	}
	done_turn(maker);
	return t ? &t->t : 0;
}

/*
 * fork (ulib/pthread/pfork.c) is a fenced operation: the forking thread
 * holds the token, every other thread is stopped with its stores
 * committed, so the child gets the program's memory as of that point.
 * The kernel forks no VP in a view, so the forker leaves its view just
 * before (its last atfork prepare handler: par_run registers det's
 * first) and enters one again after, in the parent and in the child.
 * The child has the forker alone: det's lists start again with it,
 * holding the token of its operation (par_fork_reset, from the
 * runtime's fork_child, before the child's VP 0 is set up).
 */
static struct pthr *forker;

static void fork_prepare(void)
{
	forker = me_of(thread_self());
	if (forker) {
		commit();
		leave_view();
	}
}

static void fork_parent(void)
{
	if (forker)
		ensure_view();
}

static void fork_child(void)
{
	if (forker)
		ensure_view();
}

static void par_fork_reset(void)
{
	struct pthr *me = forker;
	g.locked = 0;
	q = sq = (struct rtq){ 0 };
	waitl = runl = tq = late = timedl = 0;
	waitt = &waitl;
	tqt = &tq;
	latet = &late;
	nrun = deadlocked = 0;
	nvps = nlive = 1;
	nsvc = svc_timed = 0;            /* (the parent's service threads are not the child's) */
	for (int i = 0; i < NSVC; i++)
		svcs[i].t = 0, svcs[i].idle = 0;
	live = me;
	holder = me;
	if (me) {
		me->lnext = me->next = me->tnext = 0;
		me->timed = 0;
		me->st = P_HOLD;
		if (!me->in_op) {    /* it forked alone (solo): it runs on, no turn */
			holder = 0;
			runl = me;
			nrun = 1;
			me->st = P_PAR;
		}
	}
}

/* At exit (from any thread: in its turn) det's figures. */
static void par_report(void)
{
	struct pthr *me = me_of(thread_self());
	if (__fence_hook && me && !me->in_op) {
		guard(me);           /* (never unguarded: the program ends) */
		me->in_op = 1;       /* the last turn: it never ends */
		fence_begin(me);
	}
	phase_time(holder || !nrun ? &ps.serial_ns : &ps.parallel_ns);
	__fence_hook = 0;
	long races = sys_getinfo(INFO_VIEW_RACES);
	if (races > 0)
		printf("det: %ld bytes were written by two threads between their synchronizations "
		       "(a race, or atomics on program data: the later turn's bytes were kept)\n", races);
	printf("@result {\"name\":\"det.stats\",\"mode\":\"par\",\"moves\":%lu,\"tx\":%lu,"
	       "\"commit_pages\":%lu,\"phases\":%lu,\"threads\":%lu,\"serial_ns\":%lu,"
	       "\"parallel_ns\":%lu,\"races\":%ld,\"solo\":%lu,\"widest\":%lu,\"enters\":%lu,"
	       "\"handoffs\":%lu}\n", (unsigned long)ps.moves, (unsigned long)ps.tx,
	       (unsigned long)ps.pages, (unsigned long)ps.phases,
	       (unsigned long)ps.threads + 1, (unsigned long)ps.serial_ns,
	       (unsigned long)ps.parallel_ns, races < 0 ? 0 : races,
	       (unsigned long)ps.solo, (unsigned long)ps.widest, (unsigned long)ps.enters,
	       (unsigned long)ps.handoffs);
}

__attribute__((noreturn)) void par_run(void *(*f)(void *), void *a)
{
	mainrec.fn = f;
	mainrec.arg = a;
	mainrec.st = P_WAIT;
	push(&waitt, &mainrec);
	live = &mainrec;
	nlive = nvps = 1;
	malloc_central_only = 1;     /* blocks by the order of the calls alone */
	pcancel_any = 1;
	heap_init();                 /* (its report after det.stats) */
	atexit(par_report);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	phase_t0 = now_ns();
	rt_run(&par, 1, par_main, 0);
}
