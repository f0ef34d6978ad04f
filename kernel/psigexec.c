/*
 * What an exec keeps of signals (POSIX): ignored ones stay ignored,
 * caught ones go back to their default action, the mask and the pending
 * signals stay. ulib tells the kernel the calling thread's mask and what
 * is pending in the library (bits, and the records it queued: a real-time
 * signal's values) before the exec (SYS_sigexec); the new image
 * asks what was kept (INFO_SIGEXEC) at its start (ulib/libc/signal.c:
 * __sig_exec_keep, __sig_exec_init). Nothing is allocated: the records
 * live in struct space's psig, as psig.c's. So does ITIMER_REAL's
 * expiry and period, which POSIX's exec keeps too (alarm's time left:
 * SYS_alarmexec, INFO_ALARMEXEC; ulib/libc/timer.c), and the CPU-time
 * itimers' time left and periods, which Linux keeps (SYS_itimerexec,
 * INFO_ITIMEREXEC; ulib/libc/itimer.c).
 */
#include "kernel.h"

#define BIT(sig) (1UL << (sig))

/* Make k pending in n, an image not yet started: a real-time record
   joins the queue (past PSIG_RTQ_MAX it is dropped: the bound of every
   space), a standard signal already pending stays the one it is. */
static void keep(struct psig *n, const struct ksiginfo *k)
{
	int sig = k->signo;
	if (n->ign & BIT(sig))
		return;              /* (a blocked one is not: psig_exec) */
	if (sig >= PSIG_RTMIN) {
		if (psig_rt_queue(n, k) < 0)
			return;
	} else if (!(n->pend & BIT(sig)))
		n->info[sig] = *k;
	n->pend |= BIT(sig);
}

/* An exec: old's image becomes nw (space_exec, table_lock held: nw is in
   old's place). From here a send to old is nw's (old->exec_to, set under
   old's lock, where psig.c's send reads it); what came while old was
   ending is nw's too: a caught one pending with the rest, and one that
   ends the process returned, for the caller to end nw with (a kill that
   met the exec ended nothing before). POSIX: ignored signals stay
   ignored, caught ones go back to their default action, the mask and the pending signals stay.
   The mask (SYS_sigexec) is the new image's first thread's, so the
   signals it blocks are held for it (caught, as ulib's sync_held would
   tell) until its ulib says otherwise; what was pending in old's ulib
   is pending here: its queued records as they were (a real-time
   signal's every send, with its value, in order, ahead of the sends
   old's ulib had not taken yet), every other bit as a send by old.
   Job control goes on too (Linux stops the new image): a stop that met
   old's exec call is nw's (told or not: a sender still waiting to tell
   it finds old ended and tells nw), and *jc is the last stop signal or
   SIGCONT sent during the hand-over (else a stop signal pending that
   nw does not hold), for the caller to apply to nw. */
int psig_exec(struct space *old, struct space *nw, int *jc)
{
	spin_lock(&old->lock);
	struct psig *o = &old->psig, *n = &nw->psig;
	/* Ignored: what this image ignores, and what ulib said it has
	   SIG_IGN for (a blocked one it held, SIGD_CATCH, is no ign bit
	   here). The kept mask's signals are caught from nw's first
	   instruction, ignored ones too: a blocked signal is never ignored
	   at its sending (Linux), and nw's ulib holds them all until a
	   mask change says otherwise (as its tells would have left them).
	   Before, a blocked SIG_IGN one came out SIG_DFL, or was discarded
	   until nw's first mask change. */
	uint64_t ign = o->ign | o->keepign;
	n->ign = ign & ~o->keepmask;
	/* SIGCHLD SIG_IGN stays, and collects (Linux); SA_NOCLDWAIT of a
	   caught one goes, as its flags do (Linux clears them at exec). */
	n->cldign = n->nocldwait = (ign & BIT(17)) != 0;
	n->catch = o->keepmask;
	n->pend = o->pend & (BIT(PSIG_RTMIN) - 1);
	memcpy(n->info, o->info, sizeof n->info);
	for (int i = 0; i < o->nkeepq; i++)
		keep(n, &o->keepq[i]);
	for (int i = 0; i < o->nrtq; i++)
		keep(n, &o->rtq[i]);
	for (uint64_t b = o->keeppend & ~n->pend; b; b &= b - 1) {
		struct ksiginfo si = { .signo = __builtin_ctzl(b), .code = KSI_USER, .pid = old->id };
		keep(n, &si);
	}
	n->execign = ign;
	n->execmask = o->keepmask;
	memcpy(n->execalarm, o->keepalarm, sizeof n->execalarm);
	memcpy(n->execcpu, o->keepcpu, sizeof n->execcpu);
	n->execumask = o->keepumask;     /* (sysmode.c: not a signal, but kept the same way) */
	nw->stopped = old->stopped;
	nw->stopseq = old->stopseq;
	nw->stoptold = old->stoptold;
	nw->stopev = old->stopev;        /* (a stop's record not yet waited for) */
	nw->stopsig = old->stopsig;
	/* A pending signal nw neither holds (blocks) nor ignores gets its
	   default action now: old's handler for it is gone, and nothing
	   would ever take it (nw's ulib looks only at the ones it holds).
	   Before, a caught SIGTSTP or SIGTERM that met the exec stayed
	   pending in nw for ever, and nw ran on. */
	uint64_t dfl = n->pend & ~n->catch & ~n->ign;
	int late = o->late, stop = 0;
	for (uint64_t b = dfl; b; b &= b - 1) {
		int sig = __builtin_ctzl(b);
		if (sig >= 19 && sig <= 22)
			stop = stop ? stop : sig;
		else if (!psig_dfl_ignored(sig) && !late)
			late = sig;
	}
	n->pend &= ~dfl;
	*jc = o->latestop ? o->latestop : stop;   /* (one sent in the hand-over came later) */
	old->exec_to = nw;
	spin_unlock(&old->lock);
	return late;
}

/* INFO_SIGEXEC: what 0, the signals the exec kept ignored; 1, its mask */
long psig_exec_info(struct space *sp, uint64_t what)
{
	if (what > 1)
		return -EINVAL;
	spin_lock(&sp->lock);
	uint64_t r = what ? sp->psig.execmask : sp->psig.execign;
	spin_unlock(&sp->lock);
	return (long)r;
}

/* (mask, pending, struct ksiginfo *q, n, ign): what the caller's next
   exec keeps (psig_exec); q holds ulib's queued records, n at most
   PSIG_RTQ_MAX; ign the signals ulib has SIG_IGN for. They are the
   program's own word (its si_pid and value reach only its next image,
   which it could have told anything; it could ignore ign's signals
   itself), so only their signal numbers are checked. */
long sys_sigexec(uint64_t mask, uint64_t pend, uint64_t uq, uint64_t n, uint64_t ign, uint64_t f)
{
	(void)f;
	const uint64_t never = BIT(0) | BIT(9) | BIT(19);
	struct ksiginfo q[PSIG_RTQ_MAX];
	if (n > PSIG_RTQ_MAX)
		return -EINVAL;
	if (n && copyin(q, uq, n * sizeof q[0]) < 0)
		return -EFAULT;
	for (uint64_t i = 0; i < n; i++) {
		if (q[i].signo <= 0 || q[i].signo >= PSIG_MAX || (BIT(q[i].signo) & never))
			return -EINVAL;
		q[i].uid = 0;
		q[i].pad = 0;
	}
	struct space *me = myvp()->space;
	spin_lock(&me->lock);
	me->psig.keepmask = mask & ~never;
	me->psig.keeppend = pend & ~never;
	me->psig.keepign = ign & ~never;
	memcpy(me->psig.keepq, q, n * sizeof q[0]);
	me->psig.nkeepq = (int)n;
	spin_unlock(&me->lock);
	return 0;
}

/* Timers the next exec keeps (ITIMER_REAL, alarm's; ITIMER_VIRTUAL and
   ITIMER_PROF) are numbers ulib hands the kernel to hand back to the new
   image (INFO_ALARMEXEC, INFO_ITIMEREXEC), nothing else reads them, so
   only their range is bounded: n (time left, period) pairs from v into
   dst under the space's lock, a period only with time left. */
static void keep_pairs(uint64_t *dst, const uint64_t *v, int n)
{
	const uint64_t far = 1UL << 62;
	struct space *me = myvp()->space;
	spin_lock(&me->lock);
	for (int i = 0; i < 2 * n; i += 2) {
		dst[i] = MIN(v[i], far);
		dst[i + 1] = v[i] ? MIN(v[i + 1], far) : 0;
	}
	spin_unlock(&me->lock);
}

/* Entry `what` of kept[0..n), read under sp's lock; -EINVAL past it. */
static long kept(struct space *sp, const uint64_t *k, uint64_t n, uint64_t what)
{
	if (what >= n)
		return -EINVAL;
	spin_lock(&sp->lock);
	uint64_t r = k[what];
	spin_unlock(&sp->lock);
	return (long)r;
}

/* (due, period): ITIMER_REAL as the caller's next exec keeps it (ulib's
   timer.c keeps the timer; POSIX keeps alarm's time left across exec). */
long sys_alarmexec(uint64_t due, uint64_t period, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	const uint64_t v[2] = { due, period };
	keep_pairs(myvp()->space->psig.keepalarm, v, 1);
	return 0;
}

/* INFO_ALARMEXEC: what 0, the kept ITIMER_REAL's due time; 1, its period */
long psig_alarm_info(struct space *sp, uint64_t what)
{
	return kept(sp, sp->psig.execalarm, 2, what);
}

/* (vleft, vperiod, pleft, pperiod): ITIMER_VIRTUAL and ITIMER_PROF as
   the caller's next exec keeps them (ulib's itimer.c; Linux keeps them). */
long sys_itimerexec(uint64_t vl, uint64_t vp, uint64_t pl, uint64_t pp, uint64_t e, uint64_t f)
{
	(void)e, (void)f;
	const uint64_t v[4] = { vl, vp, pl, pp };
	keep_pairs(myvp()->space->psig.keepcpu, v, 2);
	return 0;
}

/* INFO_ITIMEREXEC: what 0..3, VIRTUAL's time left and period, PROF's */
long psig_itimer_info(struct space *sp, uint64_t what)
{
	return kept(sp, sp->psig.execcpu, 4, what);
}
