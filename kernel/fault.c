/*
 * User faults as POSIX signals (EV_FAULT, docs/abi.md). A fault of user
 * code ends its space (trap.c's user_fault, fmap.c) unless the space
 * catches the fault's signal (SYS_sigdisp's SIGD_CATCH: the kernel's own
 * record, never user memory) and the VP can take an event now: an upcall
 * VP with software interrupts on and outside its resume window, or a
 * classic VP with an interrupt entry, enabled. Then the fault becomes an
 * EV_FAULT in the VP page ring, with the signal, si_code, address and
 * faulting context, and the VP enters its upcall or interrupt entry at
 * once, interrupting the faulting context; the runtime runs the handler
 * on the faulting thread (ulib/rt/fault.c). Anything else kills as ever,
 * with the same message: a fault inside the handler of events (disabled),
 * one while the VP's last EV_FAULT is still unread, an ignored or default
 * signal (Linux forces the kill of an ignored synchronous fault).
 * Nothing is allocated: the event goes into the VP's fixed ring, and a
 * program that faults and returns from its handler forever is a loop of
 * upcalls that its quantum preempts like any other.
 */
#include "kernel.h"

/* A floating-point exception's si_code, from the exception bits that
   fired unmasked (x87 status word or MXCSR, bits 0-5: invalid,
   denormal, divide, overflow, underflow, precision), in Linux's order:
   the first that applies wins. 0 when none is set (a spurious trap).
   FPE_FLTSUB never comes from the FPU (Linux gives it none either). */
static int fpe_code(unsigned fired)
{
	if (fired & 0x01)
		return 7;                /* FPE_FLTINV (a stack fault too) */
	if (fired & 0x04)
		return 3;                /* FPE_FLTDIV */
	if (fired & 0x08)
		return 4;                /* FPE_FLTOVF */
	if (fired & 0x12)
		return 5;                /* FPE_FLTUND: underflow, denormal */
	if (fired & 0x20)
		return 6;                /* FPE_FLTRES */
	return 0;
}

/* The FP exception that fired, read from the faulting VP's FPU registers,
   still loaded (the kernel uses no FPU, and saves it only at a switch):
   the CPU's state, never user memory. The flags stay set: the runtime
   saves them in the handler's fpregs, and gives the handler a fresh FPU
   (ulib/rt/fault.c); a handler that returns without clearing them (or
   masking the exception) has the instruction fault again, as on Linux. */
static int fpe_fired(int vector)
{
	if (vector == 16) {              /* x87: status & ~control, low 6 bits */
		uint16_t cw, sw;
		__asm__ volatile("fnstcw %0; fnstsw %1" : "=m"(cw), "=m"(sw));
		return fpe_code(sw & ~cw & 0x3f);
	}
	uint32_t m;                      /* SIMD: MXCSR's flags, bits 0-5, */
	__asm__ volatile("stmxcsr %0" : "=m"(m));   /* its masks bits 7-12 */
	return fpe_code(m & ~(m >> 7) & 0x3f);
}

/* Linux's signal for an exception (0: none, the space ends), its
   si_code in *code and si_addr in *addr. prot: a page fault was one of
   protection (SEGV_ACCERR) rather than absence (SEGV_MAPERR). */
static int signal_of(const struct trapframe *tf, int prot, int *code, uint64_t *addr)
{
	*addr = tf->rip;                 /* FPE, ILL, TRAP: the instruction */
	switch (tf->vector) {
	case T_PGFLT:
		*addr = rcr2();
		*code = prot ? 2 : 1;    /* SEGV_ACCERR : SEGV_MAPERR */
		return 11;
	case 0:                          /* divide error */
		*code = 1;               /* FPE_INTDIV */
		return 8;
	case 16: case 19:                /* x87, SIMD floating point */
		*code = fpe_fired((int)tf->vector);
		return 8;
	case 6:                          /* invalid opcode */
		*code = 2;               /* ILL_ILLOPN */
		return 4;
	case 1: case 3:                  /* debug, breakpoint */
		*code = 0x80;            /* SI_KERNEL, as Linux's int3 */
		return 5;
	case 17:                         /* alignment check */
		*code = 1;               /* BUS_ADRALN */
		return 7;
	case 4: case 5: case 11: case 12: case 13:
		*addr = 0;               /* Linux gives no address for these */
		*code = 0x80;            /* SI_KERNEL */
		return 11;
	}
	return 0;
}

/* A user exception that no kernel path resolved (trap.c): 1 if it went
   to the space as EV_FAULT, 0 if the space is to be killed. */
int fault_of_trap(struct trapframe *tf, int prot, const struct fault_kill *k)
{
	int code;
	uint64_t addr;
	int sig = signal_of(tf, prot, &code, &addr);
	return sig && fault_signal(tf, sig, code, addr, k);
}

/* The faulting VP's space catches sig: post it as EV_FAULT and enter the
   VP's upcall or interrupt entry. 1 if so, 0 if the caller kills (as k
   says: kept for fault_die). */
int fault_signal(struct trapframe *tf, int sig, int code, uint64_t addr, const struct fault_kill *k)
{
	struct vp *vp = myvp();
	struct space *sp = vp->space;
	struct vp_page *p = vp->vpp;
	uint64_t bit = 1UL << sig;
	if (!(READ_ONCE(sp->psig.catch) & bit) || (READ_ONCE(sp->psig.ign) & bit) ||
	    sp->state != SP_ALIVE)
		return 0;
	int classic = !READ_ONCE(p->upcall_entry);
	if (classic ? !READ_ONCE(p->intr_entry) || READ_ONCE(p->disabled) : !upcalls_on(vp, tf))
		return 0;                /* no way to hear it now: inside its handler */
	if (vp->fault_out && (int32_t)(READ_ONCE(p->ring_head) - vp->fault_at) < 0)
		return 0;                /* the last one not taken yet */
	struct event ev = {
		.type = EV_FAULT, .token = (uint64_t)sig, .arg = addr,
		.result = (uint32_t)code | tf->vector << 32 | (tf->error & 0xffffff) << 40,
		.thread = READ_ONCE(p->current_thread),
	};
	ctx_from_tf(&ev.ctx, tf);
	if (event_post_fault(vp, &ev, classic) < 0)
		return 0;
	spin_lock(&sp->lock);
	vp->fkill = *k;
	vp->fkill.seq = (uint32_t)ev.seq;
	vp->fkill.sig = sig;
	spin_unlock(&sp->lock);
	if (classic)
		intr_return(vp, tf);     /* (an upcall VP's comes at its return: trap.c) */
	return 1;
}

/* SYS_sigdie(sig, SIGDIE_FAULT, vpi, seq): the runtime could not deliver
   EV_FAULT seq of VP vpi (the thread blocks sig, or its action is no
   longer a handler by the time it runs). The space ends now, as Linux's
   forced signal ends it, with the message the uncaught fault would have
   had; the disposition stays the program's (a kill() of sig later would
   still reach its handler, had the thread gone on). -EINVAL, and nothing
   ends, unless VP vpi of the caller's own space has that fault on record
   (the kernel's, never the caller's words): a forged or stale vp, seq or
   sig kills nobody (the runtime then asks for sig's plain end: that VP
   faulted again meanwhile, or is gone). */
long fault_die(int sig, uint64_t vpi, uint64_t seq)
{
	struct space *sp = myvp()->space;
	struct fault_kill k;
	spin_lock(&sp->lock);
	struct vp *vp = vp_lookup(sp, vpi);
	int found = vp && vp->fkill.sig == sig && vp->fkill.seq == seq && vp->fkill.cause;
	if (found)
		k = vp->fkill;
	spin_unlock(&sp->lock);
	if (!found)
		return -EINVAL;
	space_kill(sp, k.cause, k.addr, k.rip, k.detail);
	return 0;                        /* the return path sees the space dying */
}
