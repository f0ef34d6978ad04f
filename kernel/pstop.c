/*
 * Stopped processes (job control's stop and continue): SIGSTOP, and
 * SIGTSTP, SIGTTIN, SIGTTOU by default, stop a space; SIGCONT continues
 * it (psig.c decides which, this file does it).
 *
 * A stopped space runs no user code. The state is the space's
 * (`stopped`, under its lock) and the scheduler honours it without a
 * run queue of its own: a VP dispatched while its space is stopped finds
 * need_resched set (quantum_begin, sched.c) and, on its way back to user
 * mode or at a sched_point, sched_quantum_end parks it here (pstop_park):
 * off every run queue, RUNNABLE, on the space's `stopq`, which a
 * continue (or a kill: pstop_release from space_end) puts back on the
 * queues. So a stopped space costs no CPU time: each of its VPs is
 * dispatched at most once after the stop, whatever wakes it (a timer,
 * an event), and then waits, parked, with that wake-up kept (an expired
 * timer's event is in its queue when it runs again).
 *
 * VPs running at the stop are kicked (need_resched, an IPI) and counted
 * (`stop_busy`); each is counted off when it next leaves its CPU
 * (pstop_left, from the scheduler). The sender waits in the kernel until
 * none is left, so when kill() returns no VP of the target is still in
 * user mode, and only then is the stop reported to the parent: waitpid's
 * WUNTRACED and SIGCHLD (CLD_STOPPED, unless SA_NOCLDSTOP). That wait is
 * short (until an IPI is taken: a VP kicked in the kernel may finish its
 * call first, or block) and never deadlocks: a sender that is itself
 * stopped meanwhile leaves its CPU, which counts it off.
 */
#include "kernel.h"

#define BIT(sig) (1UL << (sig))
#define STOPSIGS (BIT(19) | BIT(20) | BIT(21) | BIT(22))

/* Kick every VP of t running now (t->lock held): it leaves user mode at
   once, and is counted until it leaves its CPU. */
static void kick(struct space *t)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* `stopped` before the states: sched.c's
						      dispatch sets the state, then reads it */
	for (struct vp *v = t->vps; v; v = v->space_next) {
		if (__atomic_load_n(&v->state, __ATOMIC_SEQ_CST) != VP_RUNNING)
			continue;
		if (!v->stopkick) {
			v->stopkick = 1;
			t->stop_busy++;
		}
		struct cpu *c = v->cpu;
		c->need_resched = 1;
		if (c != mycpu())
			lapic_ipi(c->apic_id, T_RESCHED);
	}
}

/* Wake whoever waits for t's stop to settle (t->lock held); each
   unlinks itself. */
static void wake_senders(struct space *t)
{
	for (struct vp *w = t->stopwait; w; w = w->stop_next)
		vp_wake(w);
}

/* Tell t's parent of a stop or continue (KSI_CLD_STOPPED / CONTINUED,
   status sig): waitpid's record, its waiters woken, and SIGCHLD unless
   it asked SIGD_NOCLDSTOP. seq: the stop it is about (a continue or a
   later stop since: told by that one, not this). kop_lock first: the
   SIGCHLD may cut a kernel wait of the parent short (kop_interrupt_held),
   and kop_lock comes before table_lock. Taken after it, as it was, it
   deadlocked both CPUs (interrupts off, no watchdog) against a space
   ending on the other one (space_end: kop_lock, then table_lock): the
   SIGCONT's sender reporting while the child it continued exited. */
static void report(struct space *t, int code, int sig, uint64_t seq)
{
	spin_lock(&kop_lock);
	spin_lock(&table_lock);
	spin_lock(&t->lock);
	int ok = t->state == SP_ALIVE && t->stopseq == seq && t->stoptold != seq &&
		 (code == KSI_CLD_CONTINUED || (t->stopped && !t->stop_busy));
	if (ok) {
		t->stoptold = seq;           /* (once: several senders may stop it) */
		t->stopev = code;
		t->stopsig = sig;
	}
	spin_unlock(&t->lock);
	struct space *par = ok ? t->parent : 0;
	if (par) {
		for (struct vp *w = t->waiters; w; w = w->wait_next)
			vp_wake(w);
		for (struct vp *w = par->anywait; w; w = w->wait_next)
			vp_wake(w);
		spin_lock(&par->lock);
		int quiet = par->psig.nocldstop || par->psig.cldign || (par->psig.ign & (1UL << 17));
		spin_unlock(&par->lock);
		if (!quiet)
			psig_chld(par, t->id, code, sig);
	}
	spin_unlock(&table_lock);
	spin_unlock(&kop_lock);
}

/* Stop t (sig: the stop signal), sent by the caller; returns once no VP
   of t runs user code (or t ends, or the caller's space does, or t is
   continued first). A pending SIGCONT is discarded. 0: t was ending, or
   ended before the stop was told (an exec's old image, whose new one
   the caller's send then stops: psig.c), else 1. */
int pstop_stop(struct space *t, int sig)
{
	struct vp *self = myvp();
	struct space *me = self->space;
	spin_lock(&t->lock);
	if (t->state != SP_ALIVE) {
		spin_unlock(&t->lock);
		return 0;
	}
	if (!t->stopped) {
		t->stopped = 1;
		t->stopseq++;
		t->stopev = 0;               /* an unreported continue is moot now */
	}
	t->psig.pend &= ~BIT(18);
	uint64_t seq = t->stopseq;
	kick(t);
	while (t->stopped && t->stop_busy && t->state == SP_ALIVE && me->state == SP_ALIVE &&
	       t->stopseq == seq) {
		self->stop_next = t->stopwait;
		t->stopwait = self;
		vp_block(&t->lock);
		spin_lock(&t->lock);
		for (struct vp **pp = &t->stopwait; *pp; pp = &(*pp)->stop_next)
			if (*pp == self) {
				*pp = self->stop_next;
				break;
			}
	}
	spin_unlock(&t->lock);
	report(t, KSI_CLD_STOPPED, sig, seq);
	spin_lock(&t->lock);
	int alive = t->state == SP_ALIVE;
	spin_unlock(&t->lock);
	return alive;
}

/* Continue t if it is stopped (SIGCONT, whatever t does with it); pending
   stop signals are discarded either way. */
void pstop_cont(struct space *t)
{
	spin_lock(&t->lock);
	t->psig.pend &= ~STOPSIGS;
	int was = t->stopped && t->state == SP_ALIVE;
	uint64_t seq = 0;
	if (was) {
		t->stopped = 0;
		seq = ++t->stopseq;
		t->stopev = 0;               /* an unreported stop is moot now */
		pstop_release(t);
	}
	spin_unlock(&t->lock);
	if (was)
		report(t, KSI_CLD_CONTINUED, 18, seq);
}

/* Put t's parked VPs back on the run queues and wake its stop's senders
   (t->lock held): a continue, or t's end (space_end). */
void pstop_release(struct space *t)
{
	while (t->stopq) {
		struct vp *v = t->stopq;
		t->stopq = v->stop_next;
		sched_enqueue(v);
	}
	wake_senders(t);
}

/* The running VP's space is stopped (sched_quantum_end): wait, parked,
   until it is continued or ends. The VP holds no lock. */
void pstop_park(void)
{
	struct vp *v = myvp();
	struct space *sp = v->space;
	spin_lock(&sp->lock);
	if (sp->stopped && sp->state == SP_ALIVE) {
		v->state = VP_RUNNABLE;      /* on no queue: vp_wake leaves it be */
		v->stop_next = sp->stopq;
		sp->stopq = v;
		spin_unlock(&sp->lock);
		shake();
		sched();                     /* (pstop_left counts it off) */
	} else
		spin_unlock(&sp->lock);
}

/* v, kicked by a stop, has left its CPU (the scheduler, v still ours):
   count it off; the last one lets the senders go on. */
void pstop_left(struct vp *v)
{
	struct space *sp = v->space;
	spin_lock(&sp->lock);
	v->stopkick = 0;
	if (--sp->stop_busy == 0)
		wake_senders(sp);
	spin_unlock(&sp->lock);
}

/* ch's stop or continue for a waitpid with these space_wait bits
   (WAIT_STOP, WAIT_CONT), as Linux's status word, or -1 (table_lock
   held). consume: the record is taken (not WNOWAIT). A child that ended
   has only its end to tell (Linux). */
int pstop_due(struct space *ch, int how, int consume)
{
	spin_lock(&ch->lock);
	int ev = ch->state == SP_DEAD ? 0 : ch->stopev, st = -1;
	if (ev == KSI_CLD_STOPPED && (how & WAIT_STOP))
		st = (ch->stopsig << 8) | 0x7f;
	else if (ev == KSI_CLD_CONTINUED && (how & WAIT_CONT))
		st = 0xffff;
	if (st >= 0 && consume)
		ch->stopev = 0;
	spin_unlock(&ch->lock);
	return st;
}
