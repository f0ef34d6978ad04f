/*
 * Signals between processes: SYS_sigdisp, SYS_sigtake, SYS_sigqueue,
 * SYS_sigdie, what a kill does to a space that catches the signal, and
 * SIGCHLD.
 *
 * Each space keeps, under its lock, which signals it catches and which
 * it ignores (told by ulib's sigaction through SYS_sigdisp: the kernel
 * reads no user memory for it) and a pending set with one record per
 * signal number (struct psig, inside struct space: charged with it, and
 * no sender can make it grow; a second send of a pending signal is the
 * same signal, as for Linux's standard signals; a real-time signal's
 * every send is a record of its own, in a queue of PSIG_RTQ_MAX per space,
 * past which a send fails with EAGAIN, as Linux's RLIMIT_SIGPENDING). A
 * signal from another process that the space catches becomes pending;
 * the first one after each take is announced by EV_PSIG to every VP of
 * the space that hears events (upcalls, or a classic VP's interrupt
 * entry, intr.c), and a classic VP blocked whole in a wait has it cut
 * short (kop_interrupt), so a flood of sends costs the target one round
 * of events per take. ulib
 * takes the records (SYS_sigtake) and raises each as a signal for the
 * program, run by a thread that does not block it (ulib/libc/signal.c).
 *
 * ulib also has the kernel catch a SIG_DFL signal that every thread
 * blocks (it stays pending for sigwait); should it find a thread that
 * does not block it after all, SYS_sigdie is the default action. What
 * an exec keeps: psigexec.c.
 *
 * SIGCHLD: a child's end is pending for its parent if the parent catches
 * it. If the parent ignores it (or asked SIGD_NOCLDWAIT), the child is
 * collected at its end, as POSIX says: a wait then finds no such child.
 * Ignored (SIGD_IGN, or SIGD_CLDIGN while ulib holds it for the mask),
 * a child's end or stop sends it none, as on Linux.
 */
#include "kernel.h"

#define BIT(sig) (1UL << (sig))

/* Signals whose default action is to do nothing. */
int psig_dfl_ignored(int sig)
{
	return sig == 17 || sig == 18 || sig == 23 || sig == 28;
}

/* Tell every VP of t that a signal is pending; t->lock held. Also one
   that names no upcall or interrupt entry yet (a thread's VP not yet
   started): the event waits in its queue until it does. A VP whose queue
   is full misses it (EVP_ADMIT): if every one did, `told` stays 0 and
   the next send tells again. */
static void announce(struct space *t, int sig)
{
	struct event ev = { .type = EV_PSIG, .arg = (uint64_t)sig };
	for (int i = 0; i < t->nvp; i++) {
		struct vp *v = vp_lookup(t, (uint64_t)i);
		if (v && event_post(v, &ev, EVP_ADMIT) == 0) {
			t->psig.told = 1;
			t->psig.notices++;
			__atomic_store_n(&v->sigwake, 1, __ATOMIC_RELEASE);
		}
	}
}

/* A real-time send joins t's queue (t->lock held): -EAGAIN once
   PSIG_RTQ_MAX wait, as Linux's RLIMIT_SIGPENDING. The queue is part of
   struct space, charged with it: no sender can make it grow. */
int psig_rt_queue(struct psig *p, const struct ksiginfo *si)
{
	if (p->nrtq >= PSIG_RTQ_MAX)
		return -EAGAIN;
	p->rtq[p->nrtq++] = *si;
	return 0;
}

/* si for t: pending if t catches it (a standard signal once, a real-time
   one per send), nothing if t ignores it (or does by default), else its
   default action (space_signal: never for a signal ignored by default,
   so SIGCHLD may be sent with table_lock held). The first pending one
   after a take also cuts short the waits of t's classic VPs that take
   interrupts (kop_interrupt), so that a VP blocked in the kernel hears
   it. -EAGAIN: t's real-time queue is full. kop_held: the caller holds
   kop_lock (and table_lock: SIGCHLD, whose sender takes kop_lock first,
   as the lock order says; taking it here under table_lock deadlocked).
   A t that is ending may be an exec's old image, which the sender took
   before the exec put the new one in its place: that is the process
   (POSIX), and the send is the new image's (late, psig_exec; *moved:
   send's to make). Before, such a kill ended nothing, and the new image
   ran on. */
static int deliver(struct space *t, const struct ksiginfo *si, int kop_held, int *moved)
{
	int sig = si->signo, end, r, told, stop, live;
again:
	end = r = told = stop = 0;
	spin_lock(&t->lock);
	struct psig *p = &t->psig;
	live = t->state == SP_ALIVE;
	*moved = !live && t->exec_to;    /* the exec is through: the new image's */
	if (*moved)
		;
	else if (sig == 19 || (sig >= 20 && sig <= 22 && !((p->catch | p->ign) & BIT(sig)))) {
		stop = live;                 /* SIGSTOP; the others' default action */
		if (!live)
			p->latestop = sig;   /* an exec's hand-over: the new image's (psig_exec) */
	}
	else if (sig < PSIG_MAX && (p->catch & BIT(sig))) {
		if (sig >= PSIG_RTMIN)
			r = psig_rt_queue(p, si);
		else if (!(p->pend & BIT(sig)))
			p->info[sig] = *si;
		if (!r) {
			p->pend |= BIT(sig);     /* (ending: for an exec's image, psig_exec) */
			if (!p->told && live) {
				announce(t, sig);
				told = 1;
			}
		}
	} else if (!(sig < PSIG_MAX && (p->ign & BIT(sig))) && !psig_dfl_ignored(sig)) {
		end = live;
		if (!live && !p->late)
			p->late = sig;           /* an exec's hand-over, under way */
	}
	if (sig == 18 && !live && !*moved)
		p->latestop = 18;            /* (the same: a continue after a stop wins) */
	spin_unlock(&t->lock);
	if (*moved)
		return 0;
	if (sig == 18)
		pstop_cont(t);       /* caught or ignored too; a handler's event is queued first (pstop.c) */
	if (stop && !pstop_stop(t, sig))
		goto again;          /* t ended before the stop was told (an exec?): look again */
	if (end && !space_signal(t, sig))
		goto again;          /* it was ending after all (an exec?): look again */
	if (told && kop_held)
		kop_interrupt_held(t);
	else if (told)
		kop_interrupt(t);
	return r;
}

/* si for t (deliver), or for the image an exec put in its place: t's id
   in the table (space_exec put it there before psig_exec set exec_to),
   again if that one exec'd too (a loop, not a recursion: a program may
   exec as often as it likes). Not with kop_held: SIGCHLD's sender names
   the parent under table_lock, and space_exec relinks a parent's
   children in the same step as it sets exec_to, so that is never an old
   image. */
static int send(struct space *t, const struct ksiginfo *si, int kop_held)
{
	struct space *held = 0;
	int r, moved;
	while ((r = deliver(t, si, kop_held, &moved)) == 0 && moved && !kop_held) {
		struct space *n = space_hold(t->id);
		if (held)
			space_put(held);         /* (t: done with) */
		held = n;
		if (!n || n == t)
			break;
		t = n;
	}
	if (held)
		space_put(held);
	return r;
}

/* A kill (or sigqueue) of t by me, which may signal it; sig 1..64 (64
   cannot be caught: one 64-bit set holds 1..63). 0, or -EAGAIN. */
long psig_kill(struct space *me, struct space *t, int sig, int code, uint64_t value)
{
	struct ksiginfo si = { .signo = sig, .code = code, .pid = me->id, .value = value };
	return send(t, &si, 0);
}

/* ch has ended and its parent is alive (space_finish, kop_lock and
   table_lock held): SIGCHLD for the parent. 1 if the parent has its
   children reaped at their end (ch is then collected at once). */
int psig_child_end(struct space *ch)
{
	struct space *par = ch->parent;
	int st = wait_status(ch), killed = (st & 0x7f) != 0;
	struct ksiginfo si = { .signo = 17, .code = killed ? KSI_CLD_KILLED : KSI_CLD_EXITED,
			       .pid = ch->id, .status = killed ? st & 0x7f : (st >> 8) & 0xff };
	if (!psig_cldign(par))
		send(par, &si, 1);
	return psig_reaps(par);
}

/* A child's stop or continue (pstop.c): SIGCHLD for its parent par
   (kop_lock and table_lock held), si_code KSI_CLD_STOPPED or
   KSI_CLD_CONTINUED. */
void psig_chld(struct space *par, int id, int code, int status)
{
	struct ksiginfo si = { .signo = 17, .code = code, .pid = id, .status = status };
	send(par, &si, 1);
}

/* Is sp's SIGCHLD action SIG_IGN (held for its mask or not)? Then a
   child's end, stop or continue sends it none, as on Linux; a kill of
   it still does (held: a blocked signal is never ignored at sending). */
int psig_cldign(struct space *sp)
{
	spin_lock(&sp->lock);
	int r = (sp->psig.ign & BIT(17)) || sp->psig.cldign;
	spin_unlock(&sp->lock);
	return r;
}

/* Does sp have its children collected at their end (SIGCHLD ignored, or
   SIGD_NOCLDWAIT)? */
int psig_reaps(struct space *sp)
{
	spin_lock(&sp->lock);
	int r = (sp->psig.ign & BIT(17)) || sp->psig.nocldwait;
	spin_unlock(&sp->lock);
	return r;
}

/* A fork's child has its parent's dispositions, nothing pending (sp's
   lock held). */
void psig_fork(struct space *sp, struct space *ch)
{
	ch->psig.catch = sp->psig.catch;
	ch->psig.ign = sp->psig.ign;
	ch->psig.nocldwait = sp->psig.nocldwait;
	ch->psig.nocldstop = sp->psig.nocldstop;
	ch->psig.cldign = sp->psig.cldign;
	ch->psig.execumask = sp->psig.execumask;   /* (the same image: INFO_UMASKEXEC, sysmode.c) */
}

/* INFO_SIGPEND, what: 0 the pending set, 1 EV_PSIG posted, 2 takes */
long psig_pending(struct space *sp, uint64_t what)
{
	if (what > 2)
		return -EINVAL;
	spin_lock(&sp->lock);
	uint64_t p = what == 0 ? sp->psig.pend : what == 1 ? sp->psig.notices : sp->psig.takes;
	spin_unlock(&sp->lock);
	return (long)p;
}

/* (sig, SIGD_* [| SIGD_NOCLDWAIT]) */
long sys_sigdisp(uint64_t sig, uint64_t how, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	const uint64_t chld = SIGD_NOCLDWAIT | SIGD_NOCLDSTOP | SIGD_CLDIGN;
	uint64_t disp = how & ~chld;
	if (!sig || sig >= PSIG_MAX || sig == 9 || sig == 19 || disp > SIGD_CATCH ||
	    ((how & chld) && sig != 17))
		return -EINVAL;
	struct space *me = myvp()->space;
	spin_lock(&me->lock);
	struct psig *p = &me->psig;
	p->catch &= ~BIT(sig);
	p->ign &= ~BIT(sig);
	if (disp == SIGD_CATCH)
		p->catch |= BIT(sig);
	else if (disp == SIGD_IGN) {
		p->ign |= BIT(sig);
		p->pend &= ~BIT(sig);        /* a pending one is discarded (POSIX) */
		int n = 0;
		for (int i = 0; i < p->nrtq; i++)
			if (p->rtq[i].signo != (int)sig)
				p->rtq[n++] = p->rtq[i];
		p->nrtq = n;
	}
	if (sig == 17) {
		p->nocldwait = (how & SIGD_NOCLDWAIT) != 0;
		p->nocldstop = (how & SIGD_NOCLDSTOP) != 0;
		p->cldign = (how & SIGD_CLDIGN) != 0;
	}
	spin_unlock(&me->lock);
	return 0;
}

/* Take sig's next record into *out (lock held): a standard signal's
   one, or a real-time signal's oldest (its bit stays while more wait). */
static void take_one(struct psig *p, int sig, struct ksiginfo *out)
{
	if (sig < PSIG_RTMIN) {
		*out = p->info[sig];
		p->pend &= ~BIT(sig);
		return;
	}
	int i = 0, more = 0;
	while (i < p->nrtq && p->rtq[i].signo != sig)
		i++;
	*out = p->rtq[i];                /* (the bit is set only while one waits) */
	for (int j = i + 1; j < p->nrtq; j++) {
		more |= p->rtq[j].signo == sig;
		p->rtq[j - 1] = p->rtq[j];
	}
	p->nrtq--;
	if (!more)
		p->pend &= ~BIT(sig);
}

/* Give back a record taken (a bad buffer): at the head of its queue. */
static void give_back(struct psig *p, const struct ksiginfo *k)
{
	int sig = k->signo;
	if (sig < PSIG_RTMIN) {
		if (!(p->pend & BIT(sig)))
			p->info[sig] = *k;
	} else {
		if (p->nrtq >= PSIG_RTQ_MAX)
			return;              /* (a send took its place meanwhile: lost) */
		for (int j = p->nrtq; j > 0; j--)
			p->rtq[j] = p->rtq[j - 1];
		p->rtq[0] = *k;
		p->nrtq++;
	}
	p->pend |= BIT(sig);
}

/* (struct ksiginfo *buf, n): up to n (at most PSIG_TAKE_MAX) pending
   signals, lowest number first (a real-time one's sends oldest first),
   taken. A bad buffer gives them back. */
long sys_sigtake(uint64_t ubuf, uint64_t n, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	if (!n)
		return -EINVAL;
	struct space *me = myvp()->space;
	struct psig *p = &me->psig;
	struct ksiginfo out[PSIG_TAKE_MAX];
	int k = 0;
	spin_lock(&me->lock);
	for (int sig = 1; sig < PSIG_MAX && k < PSIG_TAKE_MAX && (uint64_t)k < n;)
		if (p->pend & BIT(sig))
			take_one(p, sig, &out[k++]);
		else
			sig++;
	p->told = 0;                         /* the next send tells again */
	p->takes++;
	spin_unlock(&me->lock);
	if (k && copyout(ubuf, out, (size_t)k * sizeof out[0]) < 0) {
		spin_lock(&me->lock);
		for (int i = k - 1; i >= 0; i--)
			give_back(p, &out[i]);
		spin_unlock(&me->lock);
		return -EFAULT;
	}
	return k;
}

/* (sig): the caller's space ends as sig's default action would, sent by
   another process (ulib takes such a signal while some thread blocks it,
   psig.c's SIGD_CATCH; when it then finds a thread that does not, its
   default action is this). */
long sys_sigdie(uint64_t sig, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)e, (void)f;
	if (!sig || sig >= PSIG_MAX || psig_dfl_ignored((int)sig) || b > SIGDIE_FAULT)
		return -EINVAL;
	if (b == SIGDIE_FAULT)
		return fault_die((int)sig, c, d);   /* -EINVAL: no such fault, nothing ends */
	if (sig >= 19 && sig <= 22)
		pstop_stop(myvp()->space, (int)sig);   /* returns once continued (or killed) */
	else
		space_signal(myvp()->space, (int)sig);
	return 0;                        /* the return path sees the space dying */
}

/* sig with a value to one process, si_code `code`. */
static long queue_to(uint64_t pid, uint64_t sig, uint64_t value, int code)
{
	if (!sig || sig >= PSIG_MAX)
		return -EINVAL;
	if ((int64_t)pid <= 0 || pid > 0x7fffffff)
		return -ESRCH;
	struct space *me = myvp()->space, *t = space_hold((int)pid);
	if (!t)
		return -ESRCH;
	long r = space_may_signal(me, t, (int)sig) ? 0 : -EPERM;
	if (!r)
		r = psig_kill(me, t, (int)sig, code, value);
	space_put(t);
	return r;
}

/* (pid > 0, sig, value): SYS_kill of one process, with a value. */
long sys_sigqueue(uint64_t pid, uint64_t sig, uint64_t value, uint64_t d, uint64_t e, uint64_t f)
{
	(void)d, (void)e, (void)f;
	return queue_to(pid, sig, value, KSI_QUEUE);
}

/* (pid > 0, sig, value): the same as a message queue's notification
   (KSI_MESGQ), which another process's mq_send raises (ulib/libc/mqueue.c). */
long sys_sigmesgq(uint64_t pid, uint64_t sig, uint64_t value, uint64_t d, uint64_t e, uint64_t f)
{
	(void)d, (void)e, (void)f;
	return queue_to(pid, sig, value, KSI_MESGQ);
}
