/*
 * POSIX timers: timer_create and the rest of <time.h>'s timer_*, and
 * <sys/time.h>'s interval timers (setitimer, getitimer): ITIMER_REAL,
 * with alarm, which is that same timer, and ITIMER_VIRTUAL and
 * ITIMER_PROF on the process's CPU time.
 *
 * One timer thread per program fires them all. It is made on the first
 * arming, blocks every signal (so it never takes one meant for the
 * program), and sleeps in thread_block_until until the earliest deadline;
 * an arming that moves the earliest deadline closer unblocks it (a permit
 * if it is not asleep yet, so no wake-up is lost). At a deadline it sends
 * the timer's signal for the program (__sig_post_timer, ulib/signal.c:
 * main takes it unless it blocks it, else any thread that unblocks it or
 * sigwaits), or starts a detached thread running sigev_notify_function.
 *
 * Why a thread, not the kernel's per-VP one-shot timer (SYS_timer,
 * EV_TIMER): naive and kthread have no upcalls, and the timer's VP would
 * have to be the program's; a thread of the package works the same on all
 * five through the standard interface only. A program that never arms a
 * timer has no timer thread and pays nothing (nothing is added to any
 * switch path). The thread does not keep the program alive (__pt_daemon):
 * the process still ends with its last thread. Its cost is precision: a
 * deadline is seen when the timer thread gets a VP, so on a VP busy with
 * another thread of a package without preemption, late.
 *
 * A SIGEV_SIGNAL timer whose signal is still pending (sent, not yet taken
 * by a handler or a sigwait) sends no second one: its expiries count as
 * overruns until the signal is taken (__timer_taken), then timer_getoverrun
 * and si_overrun report them. Expiries the thread itself was late for
 * count the same way. Such a periodic timer is parked meanwhile (one on
 * a monotonic clock: a realtime one's periods follow a set clock): the
 * timer thread no longer wakes for it, and the taking counts the periods
 * that passed and arms it again (as Linux does). Woken every period
 * instead, a short one (the public suite's timer_getoverrun 2-3: 2 ns)
 * kept the timer thread running flat out while the signal waited.
 *
 * A timer on a CPU-time clock (CLOCK_PROCESS_CPUTIME_ID, a thread's
 * clock, and ITIMER_VIRTUAL and ITIMER_PROF on the process's) counts on
 * that clock: its due and period are that clock's. The same thread
 * watches it (cpuwatch.c): it sleeps until the earliest wall time the
 * clock could reach the due, reads it, and fires or sleeps again, so
 * never early. A thread's timer goes with the thread: once it has
 * exited, the timer is disarmed (Linux's too).
 *
 * A timer_t is a number, slot and generation, never a pointer: a deleted
 * timer's id or a made-up one is EINVAL, never a dereference.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <animart/clock.h>
#include <animart/spin.h>
#include <animart/thread.h>
#include <animart/sys.h>
#include <animalib/ulib.h>
#include "svc.h"

#define NFIXED 3                 /* slots 0-2: setitimer's, by `which` (ITIMER_REAL: alarm's) */
#define NTIMER (NFIXED + 63)      /* timer_create's: TIMER_MAX */
_Static_assert(ITIMER_REAL == 0 && ITIMER_VIRTUAL == 1 && ITIMER_PROF == 2, "setitimer's slots are its which");
#define NS 1000000000ULL
#define FAR (1ULL << 62)         /* a deadline never reached: huge values saturate here */
#define IGN_GAP 10000000ULL      /* a discarded signal's timer: a tick of Linux at HZ 100 */
#define GENMASK 0x7fffff         /* a timer_t is (gen << 8 | slot), an int for si_timerid */

struct ptimer {
	unsigned gen;                /* odd while the slot is in use; bumped by create, delete */
	struct sigevent ev;
	pthread_attr_t attr;         /* SIGEV_THREAD's, copied (detached) */
	int realtime;                /* its clock is CLOCK_REALTIME (TIMER_ABSTIME's meaning) */
	int cpu;                     /* it counts on a CPU-time clock, clk */
	clockid_t clk;
	uint64_t due;                /* next expiry, now_ns()'s clock (cpu: clk's); 0: disarmed */
	uint64_t rt_due;             /* that expiry's CLOCK_REALTIME time, for a TIMER_ABSTIME arming
					on that clock (0: none): converted again at each look, and
					its periods counted on that clock too */
	uint64_t period;             /* ns; 0: one-shot */
	int sent;                    /* its signal is pending, not taken yet */
	int overrun;                 /* expiries since that signal was sent */
	int overrun_last;            /* as of the last one taken: timer_getoverrun */
	int parked;                  /* periodic, expired with its signal pending:
					not looked at until it is taken (due: the
					first expiry not counted yet) */
};

static struct ptimer timers[NTIMER] = {
	[ITIMER_REAL] = { .gen = 1, .ev = { .sigev_signo = SIGALRM, .sigev_notify = SIGEV_SIGNAL } },
	[ITIMER_VIRTUAL] = { .gen = 1, .cpu = 1, .clk = CLOCK_PROCESS_CPUTIME_ID,
			     .ev = { .sigev_signo = SIGVTALRM, .sigev_notify = SIGEV_SIGNAL } },
	[ITIMER_PROF] = { .gen = 1, .cpu = 1, .clk = CLOCK_PROCESS_CPUTIME_ID,
			  .ev = { .sigev_signo = SIGPROF, .sigev_notify = SIGEV_SIGNAL } },
};
static struct spin lk;           /* the table, tthread, sleep_to */
static struct thread *tthread;   /* the timer thread, once it runs */
static uint64_t sleep_to;        /* what it sleeps until (FAR: no timer armed) */
static int started;              /* the timer thread is made or being made */
struct timer_stats timer_counts; /* <animalib/ulib.h>: looks by the timer thread, discarded under lk */

/* ulib/libc/signal.c */
int __timer_taken(int id);
uint64_t __clock_epoch_ns(void);        /* ulib/libc/time.c: CLOCK_REALTIME - CLOCK_MONOTONIC */

static int id_of(struct ptimer *t)
{
	return (int)(t->gen << 8 | (unsigned)(t - timers));
}

/* The timer of id if it is in use, else 0 (lk held). */
static struct ptimer *lookup(uintptr_t id)
{
	uintptr_t slot = id & 0xff, gen = id >> 8;
	if (slot >= NTIMER || !(gen & 1) || timers[slot].gen != gen)
		return 0;
	return &timers[slot];
}

/* A timer_t the program holds: never setitimer's slots. */
static struct ptimer *user_timer(timer_t id)
{
	struct ptimer *t = lookup((uintptr_t)id);
	return t && t >= timers + NFIXED ? t : 0;
}

/* The time on t's clock: now_ns()'s, or its CPU clock's (-1: that
   clock's thread has exited). */
static int64_t clock_now(struct ptimer *t)
{
	return t->cpu ? __cpu_clock_ns(t->clk) : (int64_t)now_ns();
}

static int ts_ok(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && (uint64_t)ts->tv_nsec < NS;
}

static uint64_t ts_ns(const struct timespec *ts)
{
	if ((uint64_t)ts->tv_sec >= FAR / NS)
		return FAR;
	return (uint64_t)ts->tv_sec * NS + (uint64_t)ts->tv_nsec;
}

static struct timespec ns_ts(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / NS), .tv_nsec = (long)(ns % NS) };
}

/* ---- firing ---- */

struct notify {                  /* what an expiry does, done after lk */
	struct ptimer *t;
	int id;
	struct sigevent ev;
};

int __sigev_thread(const pthread_attr_t *a, void (*fn)(union sigval), union sigval v);   /* sigevthr.c */

/* A periodic t whose signal was just discarded goes again at its first
   period from `at` on (lk held), as Linux's such timer does at most once
   a tick: re-armed at its next period, a short one (2 ns, the public
   suite's timer_getoverrun 2-3) kept the timer thread looping without a
   sleep, a whole processor, and on det the only one. */
static void defer(struct ptimer *t, uint64_t at)
{
	if (!t->period || !t->due || t->due >= at)
		return;
	uint64_t skip = (at - t->due + t->period - 1) / t->period * t->period;
	t->due += skip;
	if (t->rt_due)
		t->rt_due += skip;
}

/* Do what an expiry does; 1 if the timer thread must look at the
   timers again before it sleeps (a discarded signal unparked one). */
static int do_notify(struct notify *n)
{
	if (n->ev.sigev_notify == SIGEV_SIGNAL) {
		struct thread *m = __pt_main_hold();   /* main cannot exit meanwhile */
		int sent = __sig_post_timer(m, n->ev.sigev_signo, n->ev.sigev_value, n->id);
		__pt_main_release();
		if (!sent) {                 /* ignored: nothing pending to wait for */
			spin_lock(&lk);
			timer_counts.discarded++;
			if (lookup((unsigned)n->id)) {
				n->t->sent = n->t->parked = n->t->overrun = 0;
				defer(n->t, (uint64_t)clock_now(n->t) + IGN_GAP);
			}
			spin_unlock(&lk);
		}
		return !sent;
	}
	/* SIGEV_THREAD: a new thread per expiry, as POSIX says */
	pthread_attr_t a;
	spin_lock(&lk);
	int ok = lookup((unsigned)n->id) != 0;
	if (ok)
		a = n->t->attr;
	spin_unlock(&lk);
	if (ok && __sigev_thread(&a, n->ev.sigev_notify_function, n->ev.sigev_value)) {
		spin_lock(&lk);              /* a lost notification is an overrun */
		if (lookup((unsigned)n->id) && n->t->overrun_last < INT_MAX)
			n->t->overrun_last++;
		spin_unlock(&lk);
	}
	return 0;
}

static void add_overrun(int *o, uint64_t n)
{
	*o = (uint64_t)*o + n > INT_MAX ? INT_MAX : (int)(*o + n);
}

/* t is due at now (lk held): set its next expiry; 1 if *n is to be done. */
static int expire(struct ptimer *t, uint64_t now, struct notify *n)
{
	uint64_t missed = 0;
	if (t->period) {
		missed = (now - t->due) / t->period;
		t->due += (missed + 1) * t->period;
	} else
		t->due = 0;
	*n = (struct notify){ .t = t, .id = id_of(t), .ev = t->ev };
	switch (t->ev.sigev_notify) {
	case SIGEV_SIGNAL:
		/* until the signal is taken; not one on the realtime clock,
		   whose periods follow a set clock (the thread converts it
		   at each look): that one still counts them as they end */
		t->parked = t->due != 0 && !t->rt_due;
		if (t->sent) {
			add_overrun(&t->overrun, missed + 1);
			return 0;
		}
		t->sent = 1;
		add_overrun(&t->overrun, missed);
		return 1;
	case SIGEV_THREAD:
		t->overrun_last = 0;
		add_overrun(&t->overrun_last, missed);
		return 1;
	}
	return 0;                        /* SIGEV_NONE */
}

static void *timer_thread(void *arg)
{
	(void)arg;
	__pt_daemon_enter();
	spin_lock(&lk);
	tthread = thread_self();
	spin_unlock(&lk);
	for (;;) {
		struct notify todo[NTIMER];
		int n = 0;
		spin_lock(&lk);
		timer_counts.looks++;
		uint64_t now = now_ns(), next = FAR, base = __clock_epoch_ns();
		int rt = 0;
		for (int i = 0; i < NTIMER; i++) {
			struct ptimer *t = &timers[i];
			if (!(t->gen & 1) || !t->due || t->parked)
				continue;
			if (t->cpu) {            /* (next: when its clock could be due) */
				int64_t c = clock_now(t);
				if (c < 0)
					t->due = 0;      /* its thread has exited */
				else if (t->due <= (uint64_t)c && expire(t, (uint64_t)c, &todo[n]))
					n++;
				uint64_t w = t->due && !t->parked ? now + __cpu_nap(t->clk, t->due - (uint64_t)c) : FAR;
				next = w < next ? w : next;
				continue;
			}
			if (t->rt_due)           /* at the clock's offset of the moment */
				t->due = t->rt_due > base + now ? now + (t->rt_due - (base + now)) : now;
			if (t->due <= now) {
				/* Linux keeps the whole timer on CLOCK_REALTIME: its
				   periods count from rt_due on that clock, and a set
				   clock moves them too (unsigned: a clock set far
				   ahead still gives the right next expiry) */
				uint64_t rt = t->rt_due;
				if (rt && t->period)
					t->due = rt - base;
				if (expire(t, now, &todo[n]))
					n++;
				t->rt_due = rt && t->due && base + t->due < DL_REALTIME ? base + t->due : 0;
			}
			rt |= t->rt_due != 0;
			if (t->due && !t->parked && t->due < next)   /* (parked: the taking wakes it) */
				next = t->due;
		}
		sleep_to = next;
		spin_unlock(&lk);
		int again = 0;
		for (int i = 0; i < n; i++)
			again |= do_notify(&todo[i]);
		if (again)                   /* (its due was not in next) */
			continue;
		/* With a realtime timer armed, sleep to the same instant as a
		   CLOCK_REALTIME time (<animart/clock.h>): a clock set wakes
		   the thread, which converts every such timer again. */
		if (rt && base + next < DL_REALTIME)
			thread_block_until((base + next) | DL_REALTIME);
		else
			thread_block_until(next == FAR ? 0 : next);
	}
	return 0;
}

/* The timer thread exists (made by the first caller); 0 or EAGAIN. */
static int start(void)
{
	return __pt_daemon_once(&started, timer_thread);
}

/* t's time left and period (lk held). A realtime one's from its
   realtime time: the clock may have been set since the timer thread
   last converted it. */
static void get(struct ptimer *t, uint64_t now, uint64_t *left, uint64_t *period)
{
	if (t->cpu) {
		int64_t c = clock_now(t);
		if (c < 0)                   /* its thread has exited: disarmed */
			t->due = 0;
		now = c < 0 ? 0 : (uint64_t)c;
	}
	uint64_t rnow = t->rt_due ? __clock_epoch_ns() + now : 0;
	if (t->rt_due)
		*left = t->rt_due > rnow ? t->rt_due - rnow : 1;
	else
		*left = !t->due ? 0 : t->due > now ? t->due - now : 1;   /* due: about to fire */
	if (t->parked && *left == 1) {   /* parked: to its next period's end */
		uint64_t d = t->rt_due ? t->rt_due : t->due, n = t->rt_due ? rnow : now;
		*left = t->period - (n - d) % t->period;
	}
	*period = t->period;
}

/* Arm t to expire at `due` (0: disarm), then every period; the old time
   left and period. Wakes the timer thread if it sleeps past due. */
static int arm(struct ptimer *t, uint64_t due, uint64_t rt_due, uint64_t period, uint64_t *oleft,
	       uint64_t *operiod, int check)
{
	if (due) {
		int e = start();
		if (e)
			return e;
	}
	spin_lock(&lk);
	if (check && !user_timer((timer_t)(uintptr_t)id_of(t))) {   /* deleted meanwhile */
		spin_unlock(&lk);
		return EINVAL;
	}
	uint64_t l, p;
	get(t, now_ns(), &l, &p);
	if (oleft)
		*oleft = l, *operiod = p;
	t->due = due;
	t->rt_due = due ? rt_due : 0;
	t->period = due ? period : 0;
	t->parked = 0;
	/* (a realtime one also if later: the thread's sleep must follow a set
	   clock now; one on a CPU clock always: its sleep is another clock's) */
	struct thread *wake = due && (due < sleep_to || rt_due || t->cpu) ? tthread : 0;
	int fresh = due && !tthread;
	if (wake && !t->cpu)
		sleep_to = due;
	spin_unlock(&lk);
	if (wake)
		thread_unblock(wake);
	/* The timer thread has not run yet: a turn now, so that it sleeps
	   until the deadline, where it gets another (ulib/rt/rt_due.c).
	   Behind a caller that then only computes on the same VP, on a
	   package without time slices, it never ran at all. */
	if (fresh)
		thread_yield();
	return 0;
}

/* A parked timer's signal was taken at now (lk held): the periods that
   ended meanwhile are overruns, it is armed again at the next one; the
   timer thread to wake if it sleeps past that (or follows the clock). */
static struct thread *unpark(struct ptimer *t, uint64_t now)
{
	t->parked = 0;
	if (t->cpu) {                    /* on its own clock; the thread finds its wall time */
		int64_t c = clock_now(t);
		if (c < 0)
			return 0;
		now = (uint64_t)c;
	}
	uint64_t d = t->rt_due ? t->rt_due : t->due, n = t->rt_due ? __clock_epoch_ns() + now : now;
	if (d <= n) {
		uint64_t missed = (n - d) / t->period + 1;
		add_overrun(&t->overrun, missed);
		t->due += missed * t->period;
		if (t->rt_due)
			t->rt_due += missed * t->period;
	}
	if (t->cpu)
		return tthread;
	if (t->due >= sleep_to && !t->rt_due)
		return 0;
	sleep_to = t->due < sleep_to ? t->due : sleep_to;
	return tthread;
}

/* ulib/signal.c: the signal timer id sent was taken (or discarded): it
   may send again; the overruns to report. */
int __timer_taken(int id)
{
	spin_lock(&lk);
	struct ptimer *t = lookup((unsigned)id);
	struct thread *wake = 0;
	int r = 0;
	if (t) {
		if (t->parked)
			wake = unpark(t, now_ns());
		r = t->overrun_last = t->overrun;
		t->overrun = 0;
		t->sent = 0;
	}
	spin_unlock(&lk);
	if (wake)
		thread_unblock(wake);
	return r;
}

/* A fork's child (ulib/pthread/pfork.c), where only the caller lives:
   POSIX gives it none of its parent's timers. The timer thread is not
   here (tthread names the parent's: an arming here unblocked that copy
   and nothing ever fired), so every timer goes: timer_create's ids are
   EINVAL, alarm and setitimer's disarmed, and the next arming makes a
   thread of its own. Their pending signals went with signal.c's. */
void __timer_forked(void);
void __timer_forked(void)
{
	for (int i = 0; i < NTIMER; i++) {
		struct ptimer *t = &timers[i];
		if (i >= NFIXED && (t->gen & 1))
			t->gen = (t->gen + 1) & GENMASK;
		t->due = t->period = 0;
		t->sent = t->overrun = t->overrun_last = t->parked = 0;
	}
	lk = (struct spin)SPIN_INIT;
	tthread = 0;
	sleep_to = 0;
	started = 0;
}

/* exec (ulib/libc/exec.c): the new image keeps ITIMER_REAL's expiry
   and period (POSIX: alarm's time left); undo: the exec failed. The
   timer_create timers go with the image (POSIX deletes them). */
void __timer_exec_keep(int undo);
void __itimer_exec_keep(int undo);
void __itimer_exec_init(void);
void __timer_exec_keep(int undo)
{
	uint64_t due = 0, period = 0;
	if (!undo) {
		spin_lock(&lk);
		due = timers[0].due;
		period = timers[0].period;
		spin_unlock(&lk);
	}
	syscall2(SYS_alarmexec, due, period);
	__itimer_exec_keep(undo);        /* and ITIMER_VIRTUAL, ITIMER_PROF (itimer.c) */
}

/* The start of an image (ulib/pthread/pstart.c, as main): ITIMER_REAL as
   the exec that made it kept it, armed again (at once if due). */
void __timer_exec_init(void);
void __timer_exec_init(void)
{
	long due = syscall2(SYS_getinfo, INFO_ALARMEXEC, 0), period;
	if (due > 0 && (period = syscall2(SYS_getinfo, INFO_ALARMEXEC, 1)) >= 0)
		arm(timers, (uint64_t)due, 0, (uint64_t)period, 0, 0, 0);
	__itimer_exec_init();
}

/* ---- <time.h> ---- */

static int fail(int e)
{
	errno = e;
	return -1;
}

int timer_create(clockid_t clock, struct sigevent *ev, timer_t *out)
{
	clockid_t clk = clock;
	int cpu = clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC && clock != CLOCK_BOOTTIME;
	if (cpu && __cpu_clock_resolve(clock, &clk))
		return fail(EINVAL);         /* not a clock, or not one we can watch */
	if (!out)
		return fail(EFAULT);
	struct sigevent e = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
	if (ev) {
		e = *ev;
		if (e.sigev_notify == SIGEV_SIGNAL ? e.sigev_signo <= 0 || e.sigev_signo >= NSIG :
		    e.sigev_notify == SIGEV_THREAD ? !e.sigev_notify_function :
		    e.sigev_notify != SIGEV_NONE)
			return fail(EINVAL);
	}
	pthread_attr_t a;
	if (e.sigev_notify == SIGEV_THREAD && e.sigev_notify_attributes)
		a = *(pthread_attr_t *)e.sigev_notify_attributes;
	else
		pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);   /* nobody joins them */
	e.sigev_notify_attributes = 0;
	spin_lock(&lk);
	struct ptimer *t = 0;
	for (int i = NFIXED; i < NTIMER && !t; i++)
		if (!(timers[i].gen & 1))
			t = &timers[i];
	if (!t) {
		spin_unlock(&lk);
		return fail(EAGAIN);
	}
	t->gen = (t->gen + 1) & GENMASK;
	if (!ev)                         /* Linux: the value is the timer's id */
		e.sigev_value.sival_int = id_of(t);
	t->ev = e;
	t->attr = a;
	t->realtime = clock == CLOCK_REALTIME;
	t->cpu = cpu;
	t->clk = clk;
	t->due = t->period = 0;
	t->sent = t->overrun = t->overrun_last = t->parked = 0;
	*out = (timer_t)(uintptr_t)id_of(t);
	spin_unlock(&lk);
	return 0;
}

int timer_delete(timer_t id)
{
	spin_lock(&lk);
	struct ptimer *t = user_timer(id);
	if (t) {                         /* a signal of it still pending stays, as one of nobody's */
		t->gen = (t->gen + 1) & GENMASK;
		t->due = 0;
		t->parked = 0;
	}
	spin_unlock(&lk);
	return t ? 0 : fail(EINVAL);
}

int timer_settime(timer_t id, int flags, const struct itimerspec *v, struct itimerspec *old)
{
	if (!v)
		return fail(EFAULT);
	if (!ts_ok(&v->it_value) || !ts_ok(&v->it_interval))
		return fail(EINVAL);
	spin_lock(&lk);
	struct ptimer *t = user_timer(id);
	int realtime = t && t->realtime;
	int64_t c = t ? clock_now(t) : -1;   /* (a CPU clock: a read of that clock) */
	spin_unlock(&lk);
	if (c < 0)                       /* no such timer; its thread has exited */
		return fail(EINVAL);
	uint64_t val = ts_ns(&v->it_value), due = 0, rt_due = 0, now = (uint64_t)c;
	if (val) {
		if (!(flags & TIMER_ABSTIME))
			due = now + val;
		else {
			/* an absolute time of the timer's clock, as now_ns()'s */
			uint64_t base = realtime ? __clock_epoch_ns() : 0;
			due = val > base ? val - base : 1;   /* passed: at once */
			if (realtime && due > now && val < DL_REALTIME)
				rt_due = val;    /* it follows a set clock (timer_thread) */
		}
	}
	uint64_t l, p;
	int e = arm(t, due, rt_due, ts_ns(&v->it_interval), &l, &p, 1);
	if (e)
		return fail(e);
	if (old)
		*old = (struct itimerspec){ .it_interval = ns_ts(p), .it_value = ns_ts(l) };
	return 0;
}

int timer_gettime(timer_t id, struct itimerspec *v)
{
	spin_lock(&lk);
	struct ptimer *t = user_timer(id);
	uint64_t l = 0, p = 0;
	if (t)
		get(t, now_ns(), &l, &p);
	spin_unlock(&lk);
	if (!t)
		return fail(EINVAL);
	*v = (struct itimerspec){ .it_interval = ns_ts(p), .it_value = ns_ts(l) };
	return 0;
}

int timer_getoverrun(timer_t id)
{
	spin_lock(&lk);
	struct ptimer *t = user_timer(id);
	int r = t ? t->overrun_last : 0;
	spin_unlock(&lk);
	return t ? r : fail(EINVAL);
}

/* ---- <sys/time.h>, <unistd.h>: timers[which] ---- */

static int tv_ok(const struct timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < 1000000;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	struct timespec ts = { tv->tv_sec, tv->tv_usec * 1000 };
	return ts_ns(&ts);
}

/* Rounded up to whole microseconds, so a timer about to fire does not
   read as disarmed. */
static struct timeval ns_tv(uint64_t ns)
{
	ns = (ns + 999) / 1000;
	return (struct timeval){ .tv_sec = (time_t)(ns / 1000000), .tv_usec = (suseconds_t)(ns % 1000000) };
}

int setitimer(int which, const struct itimerval *v, struct itimerval *old)
{
	if (which != ITIMER_REAL && which != ITIMER_VIRTUAL && which != ITIMER_PROF)
		return fail(EINVAL);
	if (!v)
		return fail(EFAULT);
	if (!tv_ok(&v->it_value) || !tv_ok(&v->it_interval))
		return fail(EINVAL);
	struct ptimer *t = &timers[which];
	uint64_t val = tv_ns(&v->it_value), l, p;
	int e = arm(t, val ? (uint64_t)clock_now(t) + val : 0, 0, tv_ns(&v->it_interval), &l, &p, 0);
	if (e)
		return fail(e);
	if (old)
		*old = (struct itimerval){ .it_interval = ns_tv(p), .it_value = ns_tv(l) };
	return 0;
}

int getitimer(int which, struct itimerval *v)
{
	if (which != ITIMER_REAL && which != ITIMER_VIRTUAL && which != ITIMER_PROF)
		return fail(EINVAL);
	uint64_t l, p;
	spin_lock(&lk);
	get(&timers[which], now_ns(), &l, &p);
	spin_unlock(&lk);
	*v = (struct itimerval){ .it_interval = ns_tv(p), .it_value = ns_tv(l) };
	return 0;
}

/* Linux's rounding: to the nearest second, but a pending alarm of less
   than one reads 1 (0 would say there was none). */
unsigned alarm(unsigned s)
{
	struct itimerval v = { .it_value = { .tv_sec = s } }, old;
	if (setitimer(ITIMER_REAL, &v, &old))
		return 0;
	unsigned r = (unsigned)old.it_value.tv_sec;
	if (old.it_value.tv_usec >= 500000 || (!r && old.it_value.tv_usec))
		r++;
	return r;
}
