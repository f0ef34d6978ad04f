/*
 * What an exec keeps of signals (POSIX): ignored ones stay ignored,
 * caught ones go back to their default action, the mask and the pending
 * signals stay. ulib tells the kernel the calling thread's mask and what
 * is pending in the library before the exec (SYS_sigexec); the new image
 * asks what was kept (INFO_SIGEXEC) at its start (ulib/libc/signal.c:
 * __sig_exec_keep, __sig_exec_init). Nothing is allocated: the records
 * live in struct space's psig, as psig.c's.
 */
#include "kernel.h"

#define BIT(sig) (1UL << (sig))

/* An exec: old's image becomes nw (space_exec; old is ending, so no send
   reaches it now). POSIX: ignored signals stay ignored, caught ones go
   back to their default action, the mask and the pending signals stay.
   The mask (SYS_sigexec) is the new image's first thread's, so the
   signals it blocks are held for it (caught, as ulib's sync_held would
   tell) until its ulib says otherwise; what was pending in old's ulib
   is pending here, sent by old itself. */
void psig_exec(struct space *old, struct space *nw)
{
	spin_lock(&old->lock);
	struct psig *o = &old->psig, *n = &nw->psig;
	n->ign = o->ign;
	n->nocldwait = o->nocldwait;
	n->catch = o->keepmask & ~o->ign;
	n->pend = o->pend;
	memcpy(n->info, o->info, sizeof n->info);
	memcpy(n->rtq, o->rtq, sizeof n->rtq);
	n->nrtq = o->nrtq;
	for (uint64_t b = o->keeppend & ~o->pend & ~o->ign; b; b &= b - 1) {
		int sig = __builtin_ctzl(b);
		struct ksiginfo si = { .signo = sig, .code = KSI_USER, .pid = old->id };
		if (sig < PSIG_RTMIN)
			n->info[sig] = si;
		else if (psig_rt_queue(n, &si) < 0)
			continue;
		n->pend |= BIT(sig);
	}
	n->execign = o->ign;
	n->execmask = o->keepmask;
	spin_unlock(&old->lock);
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

/* (mask, pending): what the caller's next exec keeps (psig_exec). */
long sys_sigexec(uint64_t mask, uint64_t pend, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	const uint64_t never = BIT(0) | BIT(9) | BIT(19);
	struct space *me = myvp()->space;
	spin_lock(&me->lock);
	me->psig.keepmask = mask & ~never;
	me->psig.keeppend = pend & ~never;
	spin_unlock(&me->lock);
	return 0;
}
