/*
 * <signal.h> on a kernel without POSIX signals (Anima's events go to VPs
 * as upcalls), delivered synchronously: a handler runs when a thread
 * raises a signal for itself (raise, kill of the program, pthread_kill of
 * itself, abort), or, if that thread blocks the signal, when it unblocks
 * it. A signal for another thread (pthread_kill) waits, pending, until
 * that thread next looks: it unblocks or raises a signal, sleeps (the
 * sleep ends early, EINTR, ulib/time.c), yields, waits in sigwait, pause
 * or sigsuspend, or asks sigpending; on packages with upcalls its VP is
 * interrupted too, and the runtime runs the handler in it where it
 * computes (struct thread.sigpend, thread_signal_hook). docs/libc.md.
 *
 * Per-thread state (mask and pending set) lives in a small table keyed by
 * the thread's id, claimed on first use: threads that never touch signals
 * cost nothing, nor does a yield or block path (a resume after a
 * preemption tests sigpend). A slot whose mask and pending
 * set are empty holds nothing and may be taken by another thread.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <animart/spin.h>
#include <animart/thread.h>
#include <animart/clock.h>
#include <animart/sys.h>
#include <animart/intr.h>
#include <animart/upcall.h>
#include <animart/fault.h>
#include <anima/psig.h>

#define NSLOT 128
#define NOTHREAD (~0UL)        /* the key of code that runs no thread */
#define BIT(sig) (1UL << (sig))
#define UNBLOCKABLE (BIT(SIGKILL) | BIT(SIGSTOP))

struct sigthr {
	uint64_t key;          /* thread id, NOTHREAD, or 0: free */
	struct thread *t;      /* the thread (0 for NOTHREAD): to see it gone */
	sigset_t mask, pending;
	void *alt;             /* sigaltstack's stack (0: none), alt_size bytes */
	size_t alt_size;
	int inhook;            /* in thread_signal_hook (no second one on top) */
	int exited;            /* past __sig_thread_exit: posts go to the program */
	int unborn;            /* claimed before its creator's __sig_inherit: blocks all */
};

static struct sigaction acts[NSIG];
static struct sigthr slots[NSLOT];
static struct sigthr spare;        /* when the table is full: shared, best effort */
static sigset_t proc_pending;      /* kill(getpid()) while the caller blocked it */
static struct spin lk;

/* Where a pending signal came from, when a timer sent it (ulib/posix/
   timer.c): its value and timer, for the siginfo_t of whoever takes it.
   One per signal, as the pending sets hold one of each: a timer signal
   and a kill of the same number while it is pending are one signal. */
static struct {
	int timer;                     /* 0: none (SI_USER) */
	union sigval value;
} from_timer[NSIG];

/* Pending instances that carry more than a bit: a real-time signal's
   every send (they queue, POSIX's rule: a handler run per send, in
   order) and sigqueue's value. Each waits in one pending set (a
   thread's or proc_pending), whose bit for its signal stays set while
   any does; oldest first. Full: a sigqueue, raise or pthread_kill fails
   (EAGAIN), a kill's real-time signal is only the bit: Linux's rules
   (its queue is RLIMIT_SIGPENDING; tgkill and rt_sigqueueinfo fail past
   it, kill's SI_USER loses the instance). */
#define RT(sig) ((sig) >= SIGRTMIN)
static struct qsig {
	sigset_t *set;
	siginfo_t si;
} queue[SIGQUEUE_MAX];
static int nqueued;

/* Make si->si_signo pending in set (lk held): queued if it is a
   real-time signal or carries a value (sigqueue's, mq_notify's; a
   standard signal already pending stays one, as on Linux; a timer's is
   one pending signal that counts overruns, from_timer). -1 when
   sigqueue's, raise's or pthread_kill's cannot be queued. */
static int pend(sigset_t *set, const siginfo_t *si)
{
	int sig = si->si_signo;
	int valued = si->si_code == SI_QUEUE || si->si_code == SI_MESGQ || si->si_code == SI_ASYNCIO ||
		     si->si_code > 0 ||
		     (si->si_code == SI_USER && si->si_pid != (pid_t)vp_pseudo()->space_id);
	if ((RT(sig) && si->si_code != SI_TIMER) || (valued && !(*set & BIT(sig)))) {
		if (nqueued < SIGQUEUE_MAX)
			queue[nqueued++] = (struct qsig){ set, *si };
		else if (si->si_code == SI_QUEUE || si->si_code == SI_TKILL)
			return -1;
	}
	*set |= BIT(sig);
	return 0;
}

/* Drop the queued instances of set (all of them, or sig's); lk held. */
static void unqueue(const sigset_t *set, int sig)
{
	int n = 0;
	for (int i = 0; i < nqueued; i++)
		if (!((!set || queue[i].set == set) && (!sig || queue[i].si.si_signo == sig)))
			queue[n++] = queue[i];
	nqueued = n;
}

/* ulib/posix/timer.c (weak: only programs with timers have it): timer's
   signal was taken; it returns the overruns to report (si_overrun). */
int __timer_taken(int timer) __attribute__((weak));

static int bad(int sig)
{
	if (sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return 1;
	}
	return 0;
}

/* Signals whose action is SIG_DFL or SIG_IGN and which every thread
   blocks: the kernel holds them for the program (SIGD_CATCH) instead of
   acting or discarding, so they stay pending for sigwait and for the
   thread that unblocks one (sync_held). A blocked signal is never
   ignored at its sending on Linux, SIG_IGN's neither. */
static sigset_t held;

/* The mask the exec that made this image kept (__sig_exec_init), for
   the first thread that claims a slot: main, which in a program of the
   POSIX layer claims it in posix_main_init (__sig_main_masked) at the
   latest, before it can make a thread; a signal hook in the start may
   claim it earlier, still on main. */
static sigset_t kept_mask;

/* The POSIX layer's (ulib/pthread/pthread.c; weak: a program without it
   has none). Its pthread_create takes its general path once some thread
   has a mask, so that the new thread gets its creator's (__sig_inherit):
   a thread made on the fast path has no slot and blocks nothing. */
extern long __pcreate_slow __attribute__((weak));

/* The kernel keeps what the program does with a signal from another
   process (kernel/psig.c): catch it, ignore it, or its default action;
   told at every change of acts[sig] or of held (lk held, so in order). */
static void tell(int sig)
{
	sighandler_t h = acts[sig].sa_handler;
	long how = held & BIT(sig) ? SIGD_CATCH : h == SIG_IGN ? SIGD_IGN : h != SIG_DFL ? SIGD_CATCH : SIGD_DFL;
	/* SIG_IGN collects the children even while held for the mask (as
	   SA_NOCLDWAIT does): Linux reaps by the action, blocked or not. */
	if (sig == SIGCHLD && ((acts[sig].sa_flags & SA_NOCLDWAIT) || h == SIG_IGN))
		how |= SIGD_NOCLDWAIT;
	if (sig == SIGCHLD && h == SIG_IGN)
		how |= SIGD_CLDIGN;      /* (held or not: no SIGCHLD for a child) */
	if (sig == SIGCHLD && (acts[sig].sa_flags & SA_NOCLDSTOP))
		how |= SIGD_NOCLDSTOP;
	syscall2(SYS_sigdisp, sig, how);
}

static void fetch(void);

static uint64_t key_of(struct thread *t)
{
	return t ? t->id : NOTHREAD;
}

/* s's thread has exited, or its descriptor holds another thread now:
   what the slot holds (a signal posted as it exited, a mask its exit did
   not give back) can never be taken. Descriptors are never given back
   to malloc (docs/thread-interface.md), so a stale one reads safely. */
static int gone(const struct sigthr *s)
{
	return s->t && (__atomic_load_n(&s->t->id, __ATOMIC_ACQUIRE) != s->key ||
			thread_ended(s->t));
}


/* The POSIX layer's (ulib/pthread/pthread.c; weak): t was made by
   pthread_create and runs none of the program's code yet. */
int __pt_unborn(struct thread *t) __attribute__((weak));

/* A slot claimed by a new thread before its creator gave it its mask
   (__sig_inherit): the thread may run on another VP before its creator
   gets there, and claim it itself (an interrupt's hook). Until then it
   blocks everything, so that a kill of the program is not handed to it
   (willing) nor taken by it against the mask POSIX says it inherits.
   If it started without __sig_inherit (create's fast path: its creator
   had no mask), it blocks nothing once it runs the program; lk held. */
static struct sigthr *born(struct sigthr *s)
{
	if (s->unborn && !__pt_unborn(s->t)) {
		s->unborn = 0;
		s->mask = 0;
	}
	return s;
}

/* t's slot, claimed if it has none; lk held. A free slot (never used, or
   its thread gone) is taken before one whose live thread holds nothing:
   that one still names a thread known not to block anything, which a
   kill of the program may pick (willing). */
static struct sigthr *slot_of(struct thread *t)
{
	uint64_t key = key_of(t);
	struct sigthr *empty = 0, *idle = 0;
	for (int i = 0; i < NSLOT; i++) {
		if (slots[i].key == key)
			return born(&slots[i]);
		if (!empty && (!slots[i].key || gone(&slots[i])))
			empty = &slots[i];
		else if (!idle && !slots[i].mask && !slots[i].pending && !slots[i].alt)
			idle = &slots[i];
	}
	if (!empty)
		empty = idle;
	if (!empty)
		return &spare;
	unqueue(&empty->pending, 0);
	*empty = (struct sigthr){ .key = key, .t = t };
	if (t && kept_mask) {
		empty->mask = kept_mask;
		kept_mask = 0;
		if (&__pcreate_slow)
			__pcreate_slow = 1;  /* (it has a mask now: its threads inherit it) */
	} else if (t && __pt_unborn && __pt_unborn(t)) {
		empty->mask = ~0UL;
		empty->unborn = 1;
	}
	return empty;
}

static struct sigthr *self_slot(void)
{
	return slot_of(thread_self());
}

/* key's slot if it has one (no claim); lk held. */
static struct sigthr *find_slot(uint64_t key)
{
	for (int i = 0; i < NSLOT; i++)
		if (slots[i].key == key)
			return &slots[i];
	return 0;
}

/* The POSIX layer's count of live threads (ulib/pthread/pthread.c;
   weak: a program without the layer has only the threads it knows). */
int __pt_nlive(void) __attribute__((weak));

/* The signals every live thread blocks (lk held), as far as the library
   knows its threads: those with a slot. A thread without one blocks
   nothing, so unless every live thread of the POSIX layer has a slot
   the answer is none. */
static sigset_t all_blocked(void)
{
	sigset_t m = ~0UL;
	int n = 0;
	for (int i = 0; i < NSLOT; i++) {
		struct sigthr *s = &slots[i];
		if (s->key && s->key != NOTHREAD && s->t && !gone(s)) {
			m &= born(s)->mask;
			n++;
		}
	}
	if (!n)
		return kept_mask;        /* (no thread claimed one yet: main's, to come) */
	return __pt_nlive && n < __pt_nlive() ? 0 : m;
}

/* A mask changed (lk held): the SIG_DFL and SIG_IGN signals every thread blocks are
   held by the kernel for the program, the others take their default
   action there at once (POSIX: a blocked signal stays pending until a
   thread unblocks it or sigwaits for it). Tells the kernel only what
   changed: a syscall per change, none per mask call. */
static void sync_held(void)
{
	sigset_t want = all_blocked() & ~UNBLOCKABLE & ~1UL;
	for (int sig = 1; sig < NSIG; sig++)
		if (acts[sig].sa_handler != SIG_DFL && acts[sig].sa_handler != SIG_IGN)
			want &= ~BIT(sig);
	sigset_t ch = want ^ held;
	held = want;
	for (; ch; ch &= ch - 1)
		tell(__builtin_ctzl(ch));
}

/* The POSIX layer (ulib/posix/pthread.c; weak: a program without it has
   neither). A thread with a mask has its slot given back when it exits
   (__pthread_sig_exit_hook arranges __sig_thread_exit then). */
void __pthread_sig_exit_hook(void) __attribute__((weak));

/* Some handler was installed: from then on every new thread gets a slot
   (__sig_inherit, through pthread_create's general path), so that a
   signal for the program finds it (willing) as Linux would, even if it
   never touches signals itself: a worker that only computes. */
static int catching;

/* The caller's mask became m (lk not held). */
static void mask_set(sigset_t m)
{
	if (!m)
		return;
	if (&__pcreate_slow)
		__pcreate_slow = 1;
	if (__pthread_sig_exit_hook && thread_self())
		__pthread_sig_exit_hook();
}

/* pthread_create: the new thread t (which runs nothing of the program
   yet) starts with the caller's mask, as POSIX says, and nothing
   pending of its own: a slot claimed now starts empty (slot_of). But t
   may run before its creator gets here (on another VP), and claim its
   slot itself (an interrupt's hook, self_slot); a kill of the program
   may then have found it (willing) and left its signal there. That
   signal stays: emptied here, it was lost, its handler never ran
   (createsig on naive at -smp 2: a sender waited for it for good and
   the taker made threads until memory ran out, 3-5% of boots under
   load). Nonzero if t got a slot (a mask, or a handler exists:
   catching). */
int __sig_inherit(struct thread *t);
int __sig_inherit(struct thread *t)
{
	spin_lock(&lk);
	sigset_t m = self_slot()->mask;  /* (an empty slot stays free) */
	struct sigthr *s = m || catching ? slot_of(t) : find_slot(key_of(t));
	if (s == &spare && !m)
		s = 0;                   /* only known, and the table is full */
	if (s) {
		s->mask = m;
		s->unborn = 0;
	}
	spin_unlock(&lk);
	return s != 0;
}

/* A thread that had a mask exits (its cleanup, ulib/posix/pthread.c).
   A signal for the program may have been posted to it (willing) as it
   ended: it runs what is pending and unblocked first, since Linux keeps
   such a signal pending for the process and never loses it with the
   thread. Then its slot blocks everything and is marked exited, so that
   a later post (post_si) goes to the program instead; the slot is free
   for another thread once this one has ended (gone). */
int __sig_deliver(void);
void __sig_thread_exit(void);
void __sig_thread_exit(void)
{
	uint64_t key = key_of(thread_self());
	for (;;) {
		spin_lock(&lk);
		struct sigthr *s = find_slot(key);
		if (s && !s->exited && (s->pending & ~s->mask)) {
			spin_unlock(&lk);
			__sig_deliver();
			continue;
		}
		if (s && !s->exited) {
			unqueue(&s->pending, 0);
			*s = (struct sigthr){ .key = key, .t = s->t, .mask = ~0UL, .exited = 1 };
			sync_held();
		}
		spin_unlock(&lk);
		return;
	}
}

/* What the default action does: end the program by the signal, or
   nothing for the signals it ignores. One another process sent (si: 0
   if none) ends it as the kernel's default action would have (WTERMSIG
   = sig): it was held only because some thread blocked it (sync_held).
   So does one of its own in a process with a parent, whose waitpid
   then sees WIFSIGNALED and WTERMSIG = sig, as with glibc (it had seen
   an exit with 128 + sig: confproc's abort and raise checks); a boot
   program, whose status only the harness reads, ends as a shell would
   show it (128 + sig). */
/* Signals whose default action is to ignore them (in a process that
   runs: SIGCONT's continuing is the kernel's). */
static int dfl_ignores(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

static void default_action(int sig, const siginfo_t *si)
{
	if (dfl_ignores(sig))
		return;
	if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
		syscall2(SYS_sigdie, sig, 0);   /* the kernel stops the process; back once continued */
		return;
	}
	if ((si && si->si_pid != getpid()) || getppid() != 0)
		syscall2(SYS_sigdie, sig, 0);
	if (sig == SIGABRT)
		abort();
	exit(128 + sig);
}

void __sig_call_on(void *top, void *fn, int sig, siginfo_t *si, void *uc);   /* sigstack.S */

/* The caller runs on s's alternate stack now (a handler there). */
static int on_alt(const struct sigthr *s)
{
	char *sp = __builtin_frame_address(0);
	return s->alt && sp >= (char *)s->alt && sp < (char *)s->alt + s->alt_size;
}

/* Run sig's disposition in the calling thread (not blocked: checked).
   What ran, for a wait it interrupts (__sig_in_wait): 0 if no handler,
   else SIGW_RAN, with SIGW_INTR unless the handler asked for
   SA_RESTART. uc: the handler's third argument (a fault's context,
   sigfault.c), or 0. */
static int act_uc(int sig, siginfo_t *si, void *uc)
{
	spin_lock(&lk);
	struct sigaction a = acts[sig];
	if (a.sa_handler == SIG_IGN || a.sa_handler == SIG_DFL) {
		spin_unlock(&lk);
		if (a.sa_handler == SIG_DFL)
			default_action(sig, si);
		return 0;
	}
	if (a.sa_flags & SA_RESETHAND) {  /* (Linux keeps the flags and mask) */
		acts[sig].sa_handler = SIG_DFL;
		tell(sig);
	}
	struct sigthr *s = self_slot();
	sigset_t old = s->mask;
	s->mask |= (a.sa_mask | ((a.sa_flags & SA_NODEFER) ? 0 : BIT(sig))) & ~UNBLOCKABLE;
	char *top = (a.sa_flags & SA_ONSTACK) && s->alt && !on_alt(s) ?
		    (char *)((uint64_t)((char *)s->alt + s->alt_size) & ~15UL) : 0;
	spin_unlock(&lk);
	if (&__pcreate_slow)
		__pcreate_slow = 1;      /* a thread the handler makes inherits its mask */
	int e = errno;                   /* a handler leaves errno as it found it */
	if (top)                         /* (the handler form does not matter there) */
		__sig_call_on(top, (void *)a.sa_sigaction, sig, si, uc);
	else if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
	errno = e;
	spin_lock(&lk);
	self_slot()->mask = old;
	spin_unlock(&lk);
	return SIGW_RAN | ((a.sa_flags & SA_RESTART) ? 0 : SIGW_INTR);
}

static int act(int sig, siginfo_t *si)
{
	return act_uc(sig, si, 0);
}

/* A fault of the calling thread (sigfault.c): its handler with uc, and
   1; or 0 if the thread blocks sig or has no handler for it (the fault
   then ends the program: Linux's force for a synchronous fault). The
   mask the handler's context holds is the thread's now. */
int __sig_fault(int sig, int code, uint64_t addr, struct uctx *ctx, void *fpu,
		unsigned vector, unsigned error);
int __sig_fault_act(int sig, siginfo_t *si, sigset_t *uc_mask, void *uc);

int __sig_fault_act(int sig, siginfo_t *si, sigset_t *uc_mask, void *uc)
{
	spin_lock(&lk);
	sighandler_t h = acts[sig].sa_handler;
	sigset_t mask = self_slot()->mask;
	spin_unlock(&lk);
	if ((mask & BIT(sig)) || h == SIG_DFL || h == SIG_IGN)
		return 0;
	*uc_mask = mask;
	act_uc(sig, si, uc);
	return 1;
}

/* A signal sent by the program itself (kill, raise, pthread_kill). */
static siginfo_t user_info(int sig, int code)
{
	return (siginfo_t){ .si_signo = sig, .si_code = code, .si_pid = getpid() };
}

/* sig is taken from the pending set `from` (lk held): its bit goes,
   unless more instances wait there; its description. A timer's is
   handed back to the timer after lk (took_done). */
static siginfo_t took(sigset_t *from, int sig)
{
	siginfo_t si = user_info(sig, SI_USER);
	int i = 0;
	while (i < nqueued && !(queue[i].set == from && queue[i].si.si_signo == sig))
		i++;
	if (i < nqueued) {
		si = queue[i].si;
		memmove(&queue[i], &queue[i + 1], (size_t)(nqueued - i - 1) * sizeof queue[0]);
		nqueued--;
		while (i < nqueued && !(queue[i].set == from && queue[i].si.si_signo == sig))
			i++;
		if (i < nqueued)
			return si;           /* another one waits: the bit stays */
		*from &= ~BIT(sig);
		return si;
	}
	*from &= ~BIT(sig);
	if (from_timer[sig].timer) {
		si.si_code = SI_TIMER;
		si.si_timerid = from_timer[sig].timer;
		si.si_value = from_timer[sig].value;
		from_timer[sig].timer = 0;
	}
	return si;
}

/* took() from the program's set (lk held): no thread need look. */
static void took_program(void)
{
	thread_proc_sigs = proc_pending != 0;
}

static void took_done(siginfo_t *si)
{
	if (si->si_code == SI_TIMER && __timer_taken)
		si->si_overrun = __timer_taken(si->si_timerid);
}

/* The end of a take: the lowest signal of ready (pending in *from)
   taken into *si, or 0 if ready is empty. Entered with lk held,
   returns with it released. */
static int take_low(sigset_t *from, sigset_t ready, siginfo_t *si)
{
	int sig = ready ? __builtin_ctzl(ready) : 0;
	if (sig)
		*si = took(from, sig);
	took_program();
	spin_unlock(&lk);
	if (sig)
		took_done(si);
	return sig;
}

/* Take one pending signal the caller does not block (its own, then the
   program's), or 0; *si describes it. */
static int take_pending(siginfo_t *si)
{
	fetch();
	spin_lock(&lk);
	struct sigthr *s = self_slot();
	sigset_t ready = s->pending & ~s->mask, *from = &s->pending;
	if (!ready) {
		ready = proc_pending & ~s->mask;
		from = &proc_pending;
	}
	return take_low(from, ready, si);
}

/* Run every pending signal the caller does not block; how many ran.
   (ulib/time.c's sleeps call it: weak there.) */
int __sig_deliver(void);
int __sig_deliver(void)
{
	int n = 0;
	siginfo_t si;
	for (int sig; (sig = take_pending(&si)); n++)
		act(sig, &si);
	return n;
}

/* __sig_deliver for a wait that ends or goes on by what ran (waitpid,
   ulib/libc/proc.c; __sig_in_wait): SIGW_* of every handler run. */
int __sig_run(void);
int __sig_run(void)
{
	int r = 0;
	siginfo_t si;
	for (int sig; (sig = take_pending(&si));)
		r |= act(sig, &si);
	return r;
}

/* sig for the calling thread: now, or pending while it blocks it. */
static int raise_code(int sig, int code)
{
	siginfo_t si = user_info(sig, code);
	spin_lock(&lk);
	struct sigthr *s = self_slot();
	int blocked = (s->mask & BIT(sig)) != 0;     /* pending, SIG_IGN too (Linux) */
	int full = blocked && pend(&s->pending, &si) < 0;
	spin_unlock(&lk);
	if (full) {
		errno = EAGAIN;
		return -1;
	}
	if (!blocked)
		act(sig, &si);
	__sig_deliver();
	return 0;
}

int raise(int sig)
{
	if (sig == 0)                    /* the null signal: a check of the caller, as glibc's */
		return 0;
	if (bad(sig))
		return -1;
	int r = raise_code(sig, SI_TKILL);
	thread_turn();                   /* (det: a turn, a tick of its logical time) */
	return r;
}

static int post_si(struct thread *t, uint64_t key, const siginfo_t *si);

/* si for the program, pending for whichever thread takes it (lk held):
   every VP is interrupted next (intr_all), and the thread each runs
   takes it unless it blocks it, as Linux hands a process's signal to
   any thread that does not block it. thread_proc_sigs tells them. */
static int pend_program(const siginfo_t *si)
{
	int r = pend(&proc_pending, si);
	thread_proc_sigs = proc_pending != 0;
	return r;
}

/* A live thread other than the caller that does not block sig, among
   those with a slot (lk held): any thread that changed its mask or was
   made by one that had a mask. Threads that never touched signals have
   no slot and are not known here (the library keeps no list of threads). */
static struct thread *willing_of(int sig, struct thread *self, uint64_t *key)
{
	for (int i = 0; i < NSLOT; i++) {
		struct sigthr *s = &slots[i];
		if (s->key && s->key != NOTHREAD && s->t && s->t != self && !gone(s) &&
		    !(born(s)->mask & BIT(sig))) {
			*key = s->key;   /* (post_si: still that thread) */
			return s->t;
		}
	}
	return 0;
}

static struct thread *willing(int sig, uint64_t *key)
{
	return willing_of(sig, thread_self(), key);
}

/* si for the program: the caller takes it unless it blocks it; then,
   as Linux picks a thread that does not block it, it goes to such a
   thread, if one is known (willing: pending on it, which is woken or
   interrupted as by pthread_kill), else it waits for any thread that
   unblocks it or waits for it. */
static int send_program(siginfo_t *si)
{
	int sig = si->si_signo, full = 0;
	struct thread *to = 0;
	uint64_t key = 0;
	spin_lock(&lk);
	int blocked = (self_slot()->mask & BIT(sig)) != 0;
	if (blocked && !(to = willing(sig, &key)))
		full = pend_program(si);
	spin_unlock(&lk);
	int sent = to ? post_si(to, key, si) : 0;
	if (to && !sent) {               /* it exited meanwhile: the program's after all */
		spin_lock(&lk);
		full = pend_program(si);
		spin_unlock(&lk);
		to = 0;                  /* (and every VP told, as below) */
	} else if (sent < 0)
		full = 1;
	if (blocked && !to && !full)
		intr_all();
	if (full) {
		errno = EAGAIN;
		return -1;
	}
	if (!blocked)
		act(sig, si);
	__sig_deliver();
	return 0;
}

/* A signal another process sent (SYS_sigtake's record) becomes one for
   the program, as send_program does with a kill of its own, except that
   it is not run here: the take that follows (take_pending, take_of) runs
   it or a thread that does not block it does. `away`: the caller cannot
   run it now (no thread runs here, or the caller is blocked: a VP's
   interrupt or idle loop, thread_signal_dispatch), so it goes to a
   thread that does not block it, which is woken from its wait. A SIG_DFL
   signal that some thread does not block takes its default action. */
static int arrive(const struct ksiginfo *k, int away)
{
	int sig = k->signo;
	if (sig <= 0 || sig >= NSIG)
		return 0;
	__atomic_fetch_add(&thread_outside_sigs, 1, __ATOMIC_SEQ_CST);
	siginfo_t si = { .si_signo = sig, .si_code = k->code, .si_pid = k->pid,
			 .si_uid = (uid_t)k->uid, .si_status = k->status };
	si.si_value.sival_ptr = (void *)k->value;
	struct thread *to = 0;
	uint64_t key = 0;
	spin_lock(&lk);
	struct sigthr *me = away ? 0 : self_slot();   /* (first: known to all_blocked) */
	sighandler_t h = acts[sig].sa_handler;
	sigset_t all = all_blocked();
	int dfl = h == SIG_DFL && !(all & BIT(sig));
	int ign = (h == SIG_IGN && !(all & BIT(sig))) || dfl;
	int blocked = !ign && (away || (me->mask & BIT(sig)));
	if (blocked)
		to = away ? willing_of(sig, 0, &key) : willing(sig, &key);
	if (!ign && !to)
		pend_program(&si);
	spin_unlock(&lk);
	if (dfl)
		default_action(sig, &si);
	if (to && !post_si(to, key, &si)) {   /* it exited meanwhile */
		spin_lock(&lk);
		pend_program(&si);
		spin_unlock(&lk);
		to = 0;
	}
	if (blocked && !to)
		intr_all();              /* for any thread that does not block it */
	return to != 0;
}

/* Room for one take's records in the queue (each may need a place). */
static int room(void)
{
	return __atomic_load_n(&nqueued, __ATOMIC_RELAXED) <= SIGQUEUE_MAX - PSIG_TAKE_MAX;
}

/* One fetch at a time (fetch_as): two VPs taking at once could raise
   their records out of the kernel's order (a real-time signal's sends). */
static struct spin fetch_lk;
static struct thread *fetch_by;   /* the holder's thread: a look inside its own fetch */

/* thread_kern_sigs while a fetch takes: its records may be out of the
   kernel and not yet pending here. It goes to 0 only once they are (or
   stays 1 if the kernel said more came meanwhile), so a look that finds
   it 0 has nothing to miss. */
#define FETCHING 2

/* A synchronous look found another fetch under way: wait until it ended
   (the flag 0) or the lock is free to take again, letting its holder
   run. The holder is in a spin lock, so no package switches it out,
   except an upcall package's thread blocked in the kernel (a fault), which
   this VP may resume: so a thread yields through its package rather than
   spin, and on a classic VP (naive, kthread) gives up the processor now
   and then, as spin_wait_while does, for a holder's VP the kernel preempted.
   Not the caller itself (a fetch whose default action runs atexit
   code that looks), nor from inside another spin lock (no yield there):
   those return, as every look did before. */
static int fetch_wait(struct thread *t)
{
	if (t && (__atomic_load_n(&fetch_by, __ATOMIC_RELAXED) == t || t->crit))
		return 0;
	int classic = !vp_self()->upcall_entry;
	for (int i = 1; __atomic_load_n(&fetch_lk.locked, __ATOMIC_ACQUIRE) &&
			__atomic_load_n(&thread_kern_sigs, __ATOMIC_ACQUIRE); i++) {
		/* A pause after the yield too: under --icount a vCPU that
		   runs user code without one keeps QEMU's one TCG thread
		   until its next timer (the quantum end, 10 ms), and the
		   holder, on another CPU in a syscall that waits for a kernel
		   lock, waited that long each time (spinsig's any: 50 ms) */
		if (t)
			thread_yield();
		__asm__ volatile("pause");
		if (classic && i % 64 == 0)
			sys_yield();
	}
	return 1;
}

/* Take what other processes sent, once the kernel said it may hold some
   (thread_kern_sigs: EV_PSIG, a classic VP's interrupt, a wait's nap).
   Not while the queue lacks room for a take: the rest waits in the
   kernel (bounded there: PSIG_RTQ_MAX), and the flag stays for the next
   look. How many went to a thread woken for them (away); -1 (away) if
   another fetch is under way, which takes them all. A synchronous look
   (not away: a thread about to see what is pending) that finds one under
   way waits for it (fetch_wait): returning at once, it missed the
   records that fetch held (psig2's rtq, once; progs/posix/sigfetch). */
static int fetch_as(int away)
{
	int flag = __atomic_load_n(&thread_kern_sigs, __ATOMIC_ACQUIRE);
	if (!flag || (away && flag == FETCHING))
		return 0;
	struct thread *t = thread_self();
	for (;;) {
		if (t)
			t->crit++;       /* (as spin_lock: not switched out holding it) */
		if (spin_trylock(&fetch_lk))
			break;
		if (t && --t->crit == 0 && t->yield_due)
			spin_yield_due(t);
		if (away)
			return -1;
		if (!fetch_wait(t) || !__atomic_load_n(&thread_kern_sigs, __ATOMIC_ACQUIRE))
			return 0;
	}
	__atomic_store_n(&fetch_by, t, __ATOMIC_RELAXED);
	int posted = 0;
	if (__atomic_exchange_n(&thread_kern_sigs, FETCHING, __ATOMIC_ACQ_REL)) {
		struct ksiginfo k[PSIG_TAKE_MAX];
		for (long n; room() && (n = syscall2(SYS_sigtake, k, PSIG_TAKE_MAX)) > 0;)
			for (long i = 0; i < n; i++)
				posted += arrive(&k[i], away);
		if (!room())
			thread_kern_sigs = 1;
	}
	/* all pending here now: done, unless the kernel said more came */
	__atomic_compare_exchange_n(&thread_kern_sigs, &(int){ FETCHING }, 0, 0,
				    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	__atomic_store_n(&fetch_by, 0, __ATOMIC_RELAXED);
	spin_unlock_by(&fetch_lk, t);
	return posted;
}

static void fetch(void)
{
	fetch_as(0);
}

/* The runtime's idle loop, or a classic VP's interrupt that found its
   thread blocked (ulib/rt/rt_sched.c, intr.c): what other processes sent
   goes to threads that do not block it, woken from their waits, so that
   a handler runs in a sleep, a condition wait or a pipe read at once,
   not when the thread next runs. How many were woken; -1, not now: a
   thread holds the lock, perhaps one of this VP's, blocked in the kernel
   (a fault) until this VP's loop resumes it, so waiting here for it
   would never end. */
int thread_signal_dispatch(void)
{
	if (__atomic_load_n(&thread_kern_sigs, __ATOMIC_ACQUIRE) == FETCHING)
		return 0;                /* (one under way takes them all) */
	if (__atomic_load_n(&lk.locked, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&fetch_lk.locked, __ATOMIC_ACQUIRE))
		return -1;
	return fetch_as(1);
}

/* fork (ulib/pthread/pfork.c), phase 0 before the kernel's copy, 1 in
   the parent and 2 in the child after it: the forking thread holds the
   fetch and signal locks across the copy, so the child's copies are
   free and nothing they guard is mid-change. A copy taken while another
   thread held one kept it held in the child for good: psig2's nagger
   (a child of a kthread program whose other thread was fetching at the
   fork) spun in its first usleep's take, never sent, and the parent's
   wait hung. Taken after the atfork handlers' prepare (malloc's class
   locks: nothing here allocates), in fetch_as's order. */
static void forked(void);
void __sig_fork(int phase);
void __sig_fork(int phase)
{
	if (phase == 0) {
		spin_lock(&fetch_lk);
		spin_lock(&lk);
	} else {
		spin_unlock(&lk);
		spin_unlock(&fetch_lk);
		if (phase == 2)
			forked();
	}
}

static int kill_1(pid_t pid, int sig);

/* det takes a turn here (thread_turn): a thread that loops on kill
   while another sleeps lets it run. */
int kill(pid_t pid, int sig)
{
	int r = kill_1(pid, sig);
	thread_turn();
	return r;
}

static int kill_1(pid_t pid, int sig)
{
	if (pid > 0 && pid != getpid()) {        /* a descendant or the parent: the kernel's (psig.c) */
		long r = sig < 0 || sig > NSIG ? -EINVAL : sys_kill(pid, sig);
		if (r < 0) {
			errno = (int)-r;
			return -1;
		}
		return 0;
	}
	if (pid != getpid()) {                   /* many: the kernel signals the others */
		long r = sig < 0 || sig > NSIG ? -EINVAL : sys_kill(pid, sig);
		if (r < 0) {
			errno = (int)-r;
			return -1;
		}
		if (pid == -1 || (pid < -1 && -pid != getpgrp()))
			return 0;                /* (not the caller: Linux's kill(-1) spares it) */
	}
	if (sig == 0)
		return 0;
	if (bad(sig))
		return -1;
	siginfo_t si = user_info(sig, SI_USER);
	return send_program(&si);
}

/* sig with a value for the program (sigqueue's, and a message queue's
   notification, ulib/posix/mqueue.c: code SI_MESGQ); as kill. */
int __sig_queue(int sig, int code, union sigval value);
int __sig_queue(int sig, int code, union sigval value)
{
	if (bad(sig))
		return -1;
	siginfo_t si = user_info(sig, code);
	si.si_value = value;
	return send_program(&si);
}

/* To the program itself, or (SYS_sigqueue) to a process kill may
   signal: a positive pid, as POSIX's. */
int sigqueue(pid_t pid, int sig, union sigval value)
{
	if (pid != getpid()) {
		long r = sig < 0 || sig >= NSIG ? -EINVAL : pid <= 0 ? -ESRCH :
			 sig ? syscall3(SYS_sigqueue, pid, sig, value.sival_ptr) : sys_kill(pid, 0);
		if (r < 0) {
			errno = (int)-r;
			return -1;
		}
		return 0;
	}
	return sig == 0 ? 0 : __sig_queue(sig, SI_QUEUE, value);
}

/* pthread_kill of another thread (ulib/posix/gnu.c). A default action
   is the whole program's, so it happens here, unless t blocks the
   signal: then it waits, pending, on t, for t's sigwait or for t to
   unblock it (the usual way to take signals in a threaded program: all
   threads block them, one sigwaits). A handler's signal waits, pending,
   on t, and t is woken from a wait so that a sleep of it ends and runs
   the handler (every waiter tolerates the spurious wake-up). 1: sent;
   -1: its instance found no room in the queue (pend), nothing sent. */
static int post_si(struct thread *t, uint64_t key, const siginfo_t *si)
{
	/* Exited (not yet joined): nobody can take it, so nothing is sent
	   (glibc's pthread_kill does the same). One that exits after this
	   look leaves its slot to be reclaimed (gone). 0: not sent. Nor if
	   t's descriptor holds another thread now than the one with id key
	   (willing picked it, then it ended and was reused): that one may
	   block sig, and the program's signal would wait on it. */
	int sig = si->si_signo;
	if (thread_ended(t))
		return 0;
	spin_lock(&lk);
	sighandler_t h = acts[sig].sa_handler;
	if (__atomic_load_n(&t->id, __ATOMIC_ACQUIRE) != key) {
		spin_unlock(&lk);
		return 0;
	}
	struct sigthr *s = slot_of(t);
	if (s->exited || thread_ended(t)) {
		spin_unlock(&lk);
		return 0;
	}
	int now = h == SIG_DFL && !(s->mask & BIT(sig));
	int keep = h != SIG_IGN || (s->mask & BIT(sig));   /* blocked: pending, SIG_IGN too (Linux) */
	if (keep && !now && pend(&s->pending, si) < 0) {
		spin_unlock(&lk);
		return -1;
	}
	spin_unlock(&lk);
	if (now)
		default_action(sig, si);
	else if (keep) {
		__atomic_fetch_or(&t->sigpend, SIGPEND_WAITING, __ATOMIC_RELEASE);
		thread_unblock(t);
		if (t->ops->interrupt)   /* running: its package lets it run the handler */
			t->ops->interrupt(t);
	}
	return 1;
}

/* pthread_kill of another thread: -1 when its real-time signal finds
   the queue full (EAGAIN, as Linux's tgkill), else 0. */
int __sig_post(struct thread *t, int sig);
int __sig_post(struct thread *t, int sig)
{
	siginfo_t si = user_info(sig, SI_TKILL);
	return post_si(t, t->id, &si) < 0 ? -1 : 0;
}

/* A timer's signal (ulib/posix/timer.c), for the program: main, the
   thread the program most likely waits in (pause, sigsuspend), takes it
   unless it blocks it, through __sig_post (wake-up, upcall); otherwise it
   stays pending for the program, for the first thread that unblocks it
   or waits for it (sigwait). main is 0 once main exited; the caller
   keeps it from exiting meanwhile (__pt_main_hold). 0 if the signal is
   ignored (discarded: SIG_IGN, or a default that ignores it, unblocked), else 1: __timer_taken(timer) follows once some
   thread takes it. */
int __sig_post_timer(struct thread *main, int sig, union sigval v, int timer);
int __sig_post_timer(struct thread *main, int sig, union sigval v, int timer)
{
	spin_lock(&lk);
	struct sigthr *s = main ? find_slot(key_of(main)) : 0;
	int to_main = main && !(s && (born(s)->mask & BIT(sig)));
	uint64_t key = main ? main->id : 0;
	struct thread *to = to_main ? main : willing_of(sig, 0, &key);
	/* Ignored (SIG_IGN, or a default that ignores it) and the thread it
	   goes to does not block it: discarded now, as Linux does, so the
	   timer may send again (taken for sent, it never did: nobody takes
	   it). Blocked by every thread, it stays pending, SIG_IGN too, as on
	   Linux: a sigwait for it gets it (the SIG_IGN timer stopped). */
	if (to && (acts[sig].sa_handler == SIG_IGN ||
		   (acts[sig].sa_handler == SIG_DFL && dfl_ignores(sig)))) {
		spin_unlock(&lk);
		return 0;
	}
	from_timer[sig].timer = timer;
	from_timer[sig].value = v;
	if (!to) {
		proc_pending |= BIT(sig);
		thread_proc_sigs = 1;
	}
	spin_unlock(&lk);
	if (to && !post_si(to, key, &(siginfo_t){ .si_signo = sig, .si_code = SI_TIMER, .si_pid = getpid() })) {
		spin_lock(&lk);      /* it exited meanwhile */
		proc_pending |= BIT(sig);
		thread_proc_sigs = 1;
		spin_unlock(&lk);
		to = 0;
	}
	if (!to)
		intr_all();          /* for any thread that does not block it */
	return 1;
}

/* A runtime package resumes t (the caller) where it was interrupted, or
   an upcall interrupted it, and t->sigpend says a handler waits: run
   what is pending now (thread.h). The flag goes first, so a post during
   the handlers sets it again. */
void thread_signal_hook(struct thread *t)
{
	/* Not on top of itself: an interruption of the hook (a flood of
	   signals from another process, an EV_PSIG each) leaves the flag
	   set for the hook under way, which looks again. Stacked, the hooks
	   ran the thread's stack out (psig's flooded child, at fetch). */
	spin_lock(&lk);
	struct sigthr *s = self_slot();
	int busy = s->inhook;
	s->inhook = 1;
	spin_unlock(&lk);
	if (busy)
		return;
	do {
		__atomic_fetch_and(&t->sigpend, ~SIGPEND_WAITING, __ATOMIC_ACQ_REL);
		if (__sig_deliver())         /* counted: a sleep or pause it interrupted ends (EINTR) */
			__atomic_fetch_add(&t->sigpend, SIGPEND_RAN, __ATOMIC_RELEASE);
	} while (__atomic_load_n(&t->sigpend, __ATOMIC_ACQUIRE) & SIGPEND_WAITING);
	spin_lock(&lk);
	self_slot()->inhook = 0;
	spin_unlock(&lk);
}

/* A wait of the POSIX layer (ulib/posix/pwait.h) woke, and t->sigpend
   says a handler waits for t, the caller: run what is pending now, in
   t's own context, with the wait's node still queued (async_hold keeps
   an asynchronous cancel off meanwhile). The wait then goes on, or, if
   it is one a handler interrupts (sem_wait) and SIGW_INTR is set, ends
   with EINTR. Works alike for every package: the post's unblock woke
   t, so no upcall is needed. (thread_signal_hook stays out of waits:
   it runs the handlers in an interrupted context, where the wait would
   never learn that they ran.) */
int __sig_in_wait(struct thread *t);
int __sig_in_wait(struct thread *t)
{
	__atomic_fetch_and(&t->sigpend, ~SIGPEND_WAITING, __ATOMIC_ACQ_REL);
	int hold = t->async_hold, r = __sig_run();
	/* A wait inside a handler ends with async_hold 0 (pw_done), but the
	   wait it interrupted still has its node queued: hold again, unless
	   an asynchronous cancel was held back meanwhile (2: the wait's end
	   asks again). */
	if (hold)
		__atomic_compare_exchange_n(&t->async_hold, &(int){ 0 }, hold, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return r;
}

/* How many times handlers ran in the caller through thread_signal_hook
   (the count wraps): a wait compares it before and after. */
static unsigned ran_async(void)
{
	struct thread *t = thread_self();
	return t ? (unsigned)__atomic_load_n(&t->sigpend, __ATOMIC_ACQUIRE) / SIGPEND_RAN : 0;
}

/* abort() (ulib/start.c): a SIGABRT handler runs first, blocked or not;
   abort ends the program whatever it does, unless it never returns. */
void __sig_abort(void);
void __sig_abort(void)
{
	spin_lock(&lk);
	sighandler_t h = acts[SIGABRT].sa_handler;
	self_slot()->mask &= ~BIT(SIGABRT);
	spin_unlock(&lk);
	if (h != SIG_DFL && h != SIG_IGN) {
		siginfo_t si = user_info(SIGABRT, SI_TKILL);
		act(SIGABRT, &si);
	}
}

int sigaction(int sig, const struct sigaction *a, struct sigaction *old)
{
	if (bad(sig))
		return -1;
	if (a && (sig == SIGKILL || sig == SIGSTOP)) {
		errno = EINVAL;
		return -1;
	}
	siginfo_t gone = { 0 };
	spin_lock(&lk);
	if (old)
		*old = acts[sig];
	if (a && a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN) {
		catching = 1;
		thread_fault_hook = __sig_fault;   /* a fault may reach it (sigfault.c) */
		self_slot();                 /* known: a signal for the program may wake it */
		if (&__pcreate_slow)
			__pcreate_slow = 1;
	}
	if (a) {
		acts[sig] = *a;
		if ((a->sa_flags & SA_ONSTACK) && a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN)
			__atomic_fetch_or(&thread_fault_onstack, BIT(sig), __ATOMIC_RELAXED);
		else
			__atomic_fetch_and(&thread_fault_onstack, ~BIT(sig), __ATOMIC_RELAXED);
		held &= ~BIT(sig);
		sync_held();
		tell(sig);
		if (a->sa_handler == SIG_IGN) {      /* pending ones are discarded */
			proc_pending &= ~BIT(sig);
			for (int i = 0; i < NSLOT; i++)
				slots[i].pending &= ~BIT(sig);
			unqueue(0, sig);
			gone = took(&proc_pending, sig);   /* a timer's may send again */
			took_program();
		}
	}
	spin_unlock(&lk);
	took_done(&gone);
	return 0;
}

sighandler_t signal(int sig, sighandler_t h)
{
	struct sigaction a = { .sa_handler = h, .sa_flags = SA_RESTART }, old;
	if (h == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	return sigaction(sig, &a, &old) ? SIG_ERR : old.sa_handler;
}

int sigemptyset(sigset_t *s) { *s = 0; return 0; }
int sigfillset(sigset_t *s) { *s = ~0UL; return 0; }
int sigaddset(sigset_t *s, int sig) { if (bad(sig)) return -1; *s |= BIT(sig); return 0; }
int sigdelset(sigset_t *s, int sig) { if (bad(sig)) return -1; *s &= ~BIT(sig); return 0; }
int sigismember(const sigset_t *s, int sig) { if (bad(sig)) return -1; return !!(*s & BIT(sig)); }
int sigisemptyset(const sigset_t *s) { return !*s; }
int sigandset(sigset_t *d, const sigset_t *a, const sigset_t *b) { *d = *a & *b; return 0; }
int sigorset(sigset_t *d, const sigset_t *a, const sigset_t *b) { *d = *a | *b; return 0; }

/* Linux's rules: only SS_DISABLE (or 0) in ss_flags, at least
   MINSIGSTKSZ bytes (ENOMEM), no change while a handler runs on it
   (EPERM). The stack is the calling thread's; its slot is given back
   when it exits (as for a mask). */
int sigaltstack(const stack_t *ss, stack_t *old)
{
	int e = 0;
	if (ss && (ss->ss_flags & ~SS_DISABLE))
		e = EINVAL;
	else if (ss && !(ss->ss_flags & SS_DISABLE) && ss->ss_size < MINSIGSTKSZ)
		e = ENOMEM;
	spin_lock(&lk);
	struct sigthr *s = self_slot();
	if (old)
		*old = (stack_t){ s->alt, !s->alt ? SS_DISABLE : on_alt(s) ? SS_ONSTACK : 0,
				  s->alt_size };
	if (!e && ss && on_alt(s))
		e = EPERM;
	if (!e && ss) {
		int off = ss->ss_flags & SS_DISABLE;
		s->alt = off ? 0 : ss->ss_sp;
		s->alt_size = off ? 0 : ss->ss_size;
		struct thread *t = thread_self();
		if (t) {                 /* (a fault's frame may go there: ulib/rt/fault.c) */
			t->alt_lo = (uint64_t)s->alt;
			t->alt_hi = (uint64_t)s->alt + s->alt_size;
		}
	}
	spin_unlock(&lk);
	if (e) {
		errno = e;
		return -1;
	}
	if (ss && !(ss->ss_flags & SS_DISABLE) && __pthread_sig_exit_hook && thread_self())
		__pthread_sig_exit_hook();
	return 0;
}

/* The calling thread's mask (POSIX: sigprocmask in a threaded program is
   pthread_sigmask). Signals it unblocks that were pending run now. */
int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (set && how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK) {
		errno = EINVAL;
		return -1;
	}
	spin_lock(&lk);
	struct sigthr *s = self_slot();
	if (old)
		*old = s->mask;
	if (set) {
		if (how == SIG_BLOCK)
			s->mask |= *set;
		else if (how == SIG_UNBLOCK)
			s->mask &= ~*set;
		else
			s->mask = *set;
		s->mask &= ~UNBLOCKABLE & ~1UL;
		sync_held();
	}
	sigset_t m = s->mask;
	spin_unlock(&lk);
	if (set)
		mask_set(m);
	__sig_deliver();
	thread_turn();                   /* (det: a turn: a loop on masks lets a sleeper wake) */
	return 0;
}

int sigpending(sigset_t *set)
{
	if (catching || held)
		thread_kern_sigs = 1;    /* (a signal from outside may wait in the kernel) */
	__sig_deliver();
	spin_lock(&lk);
	struct sigthr *s = self_slot();
	*set = (s->pending | proc_pending) & s->mask;
	spin_unlock(&lk);
	return 0;
}

/* Take a pending signal of set (the caller's, then the program's); 0 if
   none; *si describes it. */
static int take_of(const sigset_t *set, siginfo_t *si)
{
	fetch();
	spin_lock(&lk);
	struct sigthr *s = self_slot();
	sigset_t *from = (s->pending & *set) ? &s->pending : &proc_pending;
	sigset_t ready = *from & *set;
	return take_low(from, ready, si);
}

/* A short sleep of the caller while it waits for a signal: a post wakes
   it (__sig_post), so this only bounds a wait for a kill() of the
   program, which wakes nobody. */
static void nap(void)
{
	if (thread_self())
		thread_block_until(now_ns() + 1000000);
	else
		sys_sleep(1000000);
	if (catching || held)
		thread_kern_sigs = 1;    /* and for one from another process (fetch) */
}

/* The POSIX layer's (ulib/pthread/pthread.c; weak: a program without
   it has no cancellation): sigwait, sigtimedwait, sigwaitinfo,
   sigsuspend and pause are cancellation points (POSIX's list), acted on
   as the wait begins and each time round it (a cancel unblocks nap). */
__attribute__((weak)) void pthread_testcancel(void);
static void cancel_point(void)
{
	if (pthread_testcancel)
		pthread_testcancel();
}

int sigwait(const sigset_t *set, int *sig)
{
	int s;
	siginfo_t si;
	while (cancel_point(), !(s = take_of(set, &si))) {
		/* a signal outside the set that the caller does not block
		   runs its handler here, and the wait goes on (as Linux's
		   sigwait, which never fails with EINTR) */
		__sig_deliver();
		nap();
	}
	*sig = s;
	return 0;
}

/* sigwait with a limit and the signal's description: a signal of set,
   or -1 with EAGAIN once `timeout` (0: none) passed, or EINTR once a
   handler for another signal ran here (Linux's rules). The pending sets
   keep no sender: si_code is SI_USER, si_pid this program's, unless a
   timer sent it (SI_TIMER, its value and overruns: from_timer). */
int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	if (!set || (timeout && (timeout->tv_sec < 0 || timeout->tv_nsec < 0 ||
				 timeout->tv_nsec >= 1000000000))) {
		errno = EINVAL;
		return -1;
	}
	uint64_t end = timeout ? now_ns() + (uint64_t)timeout->tv_sec * 1000000000 +
					 (uint64_t)timeout->tv_nsec : 0;
	int s;
	siginfo_t si;
	/* A handler that ran in us during a nap (thread_signal_hook: a
	   signal from another process, or a pthread_kill, interrupted the
	   nap) ends the wait too: before, only those run here did, and a
	   sigtimedwait on naive, det or fifo went on to its timeout while
	   another signal's handler ran in it hundreds of times. */
	unsigned ran = ran_async();
	while (cancel_point(), !(s = take_of(set, &si))) {
		if (__sig_deliver() || ran_async() != ran) {
			errno = EINTR;
			return -1;
		}
		if (end && now_ns() >= end) {
			errno = EAGAIN;
			return -1;
		}
		nap();
	}
	if (info)
		*info = si;
	return s;
}

int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	return sigtimedwait(set, info, 0);
}

int sigsuspend(const sigset_t *mask)
{
	unsigned ran = ran_async();
	/* The mask changes here, not by sigprocmask: a signal pending
	   before, which the new mask lets through, is what this wait is
	   for, and sigprocmask would run its handler and not say so. */
	spin_lock(&lk);
	struct sigthr *s = self_slot();
	sigset_t old = s->mask;
	s->mask = *mask & ~UNBLOCKABLE & ~1UL;
	sync_held();
	sigset_t m = s->mask;
	spin_unlock(&lk);
	mask_set(m);
	while (cancel_point(), !__sig_deliver() && ran_async() == ran)
		nap();
	sigprocmask(SIG_SETMASK, &old, 0);
	errno = EINTR;
	return -1;
}

int pause(void)
{
	unsigned ran = ran_async();
	while (cancel_point(), !__sig_deliver() && ran_async() == ran)
		nap();
	errno = EINTR;
	return -1;
}

/* A queued record as the kernel keeps it across an exec. */
static struct ksiginfo ksi_of(const siginfo_t *si)
{
	return (struct ksiginfo){ .signo = si->si_signo, .code = si->si_code, .pid = si->si_pid,
				  .status = si->si_status, .value = (uint64_t)si->si_value.sival_ptr };
}

/* exec (ulib/libc/exec.c) keeps the caller's mask, the signals
   pending for it or the program, the queued ones as they were: a
   real-time signal's every send, with its value, and the ignored ones
   (SYS_sigexec; undo: the exec failed). The kernel's own ignored set
   lacks those held (a SIG_IGN signal every thread blocks is caught
   there: sync_held), so the library's goes too. */
void __sig_exec_keep(int undo);
void __sig_exec_keep(int undo)
{
	sigset_t m = 0, p = 0, ign = 0;
	struct ksiginfo q[PSIG_RTQ_MAX];
	int n = 0;
	if (!undo) {
		spin_lock(&lk);
		struct sigthr *s = self_slot();
		m = s->mask;
		p = s->pending | proc_pending;
		for (int i = 0; i < nqueued && n < PSIG_RTQ_MAX; i++)
			if (queue[i].set == &s->pending || queue[i].set == &proc_pending)
				q[n++] = ksi_of(&queue[i].si);
		for (int sig = 1; sig < NSIG; sig++)
			if (acts[sig].sa_handler == SIG_IGN)
				ign |= BIT(sig);
		spin_unlock(&lk);
	}
	syscall6(SYS_sigexec, (long)m, (long)p, (long)q, n, (long)ign, 0);
}

/* At the start of an image an exec made (ulib/libc/start.c): the
   signals it kept ignored are SIG_IGN here, its mask is the first
   thread's (kept_mask), and the signals it blocks are held by the
   kernel, ignored ones too (psig_exec set them caught: held says so,
   as sync_held would), pending ones looked at. */
void __sig_exec_init(void);
void __sig_exec_init(void)
{
	long ign = syscall2(SYS_getinfo, INFO_SIGEXEC, 0), m = syscall2(SYS_getinfo, INFO_SIGEXEC, 1);
	if (sys_failed(ign) || sys_failed(m) || (!ign && !m))
		return;
	for (uint64_t b = (uint64_t)ign & ~UNBLOCKABLE & ~1UL; b; b &= b - 1)
		acts[__builtin_ctzl(b)].sa_handler = SIG_IGN;
	kept_mask = (uint64_t)m & ~UNBLOCKABLE & ~1UL;
	held = kept_mask;
	if (kept_mask && &__pcreate_slow)
		__pcreate_slow = 1;      /* threads made get their creator's mask */
	if (syscall2(SYS_getinfo, INFO_SIGPEND, 0))
		thread_kern_sigs = 1;
}

/* posix_main_init (ulib/pthread/pthread.c), on main's thread: main
   starts with the mask the exec kept, and takes it here, before it can
   make a thread that could claim it first. Nonzero if some thread has a
   mask, so that every thread made from here on gets a slot and its
   creator's mask (pthread_create's general path, __sig_inherit). Main may
   have claimed the kept mask before (a signal hook or look in the start,
   on a classic VP's interrupt): answering from kept_mask alone then said
   no mask, a worker main made on the fast path had no slot, so every
   thread no longer blocked the mask's signals (all_blocked), and a send
   from another process took its default action (psig3's execthr). */
int __sig_main_masked(void);
int __sig_main_masked(void)
{
	int any = 0;
	spin_lock(&lk);
	if (kept_mask)
		self_slot();
	for (int i = 0; i < NSLOT; i++)
		any |= slots[i].key && slots[i].key != NOTHREAD && !slots[i].exited &&
		       slots[i].mask;
	spin_unlock(&lk);
	return any;
}

/* A fork's child (ulib/pthread/pfork.c), where only the caller lives:
   the other threads' slots name threads that are not here (copies of
   their descriptors, which look alive), so they go, with what was
   pending on them; they must not count in all_blocked or be picked by
   willing. And the child starts with nothing pending (POSIX; the
   kernel's side is psig_fork): the caller's own pending set, the
   program's, the queued instances with their values and the timers'
   records go, and its thread is told no handler waits; its mask,
   handlers and alternate stack stay. Called by __sig_fork(2), the
   locks free. */
static void forked(void)
{
	struct thread *t = thread_self();
	uint64_t me = key_of(t);
	spin_lock(&lk);
	for (int i = 0; i < NSLOT; i++) {
		if (slots[i].key && slots[i].key != me && slots[i].key != NOTHREAD)
			slots[i] = (struct sigthr){ 0 };
		slots[i].pending = 0;
	}
	spare.pending = proc_pending = 0;
	nqueued = 0;
	memset(from_timer, 0, sizeof from_timer);
	thread_proc_sigs = 0;
	if (t)
		__atomic_fetch_and(&t->sigpend, ~SIGPEND_WAITING, __ATOMIC_ACQ_REL);
	sync_held();
	spin_unlock(&lk);
}

char *strsignal(int sig)
{
	static const char *const names[NSIG] = {
		[SIGHUP] = "Hangup", [SIGINT] = "Interrupt", [SIGQUIT] = "Quit",
		[SIGILL] = "Illegal instruction", [SIGTRAP] = "Trace/breakpoint trap",
		[SIGABRT] = "Aborted", [SIGBUS] = "Bus error",
		[SIGFPE] = "Floating point exception", [SIGKILL] = "Killed",
		[SIGUSR1] = "User defined signal 1", [SIGSEGV] = "Segmentation fault",
		[SIGUSR2] = "User defined signal 2", [SIGPIPE] = "Broken pipe",
		[SIGALRM] = "Alarm clock", [SIGTERM] = "Terminated", [SIGCHLD] = "Child exited",
		[SIGCONT] = "Continued", [SIGSTOP] = "Stopped (signal)",
	};
	static char rt[24];
	if (sig >= SIGRTMIN && sig <= SIGRTMAX) {   /* glibc's words */
		snprintf(rt, sizeof rt, "Real-time signal %d", sig - SIGRTMIN);
		return rt;
	}
	return (char *)(sig > 0 && sig < NSIG && names[sig] ? names[sig] : "Unknown signal");
}
