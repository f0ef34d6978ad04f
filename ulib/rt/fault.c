/*
 * Faults as signals, the runtime's half (kernel/fault.c, docs/abi.md
 * EV_FAULT). The kernel turns a fault the program catches into EV_FAULT,
 * interrupting the faulting context. The handler runs on the faulting
 * thread, on its own stack, as Linux runs it:
 *  - an upcall VP (rt_sched.c's drain): the thread's saved context is
 *    redirected to fault_entry (fault.S) on a frame below its stack
 *    pointer (or atop its alternate signal stack, SA_ONSTACK: so a
 *    stack overflow's handler can run) that holds the faulting registers; whenever the thread next
 *    runs (at once, unless the upcall switches it out), it runs the
 *    handler there and resumes the frame's registers;
 *  - a classic VP (intr_run): its interrupt entry already built such a
 *    frame on the thread's stack; the handler runs from there.
 * If the thread blocks the signal or its action is no longer a handler,
 * the program ends at once, as Linux's forced signal ends it: SYS_sigdie
 * with SIGDIE_FAULT names the event, and the kernel kills with the
 * message and status it would have given the fault uncaught. The
 * kernel's disposition is never touched here, so it always matches
 * ulib's: (resetting it and running the instruction again left it at
 * the default if the retry passed, and a later kill() of the signal
 * then ended the program instead of running its handler).
 */
#include <animart/sys.h>
#include <animart/upcall.h>
#include <animart/thread.h>
#include <animart/fault.h>
#include <anima/psig.h>

thread_fault_fn thread_fault_hook;
volatile uint64_t thread_fault_onstack;

_Static_assert(__builtin_offsetof(struct thread, alt_lo) == THREAD_ALT_LO, "struct thread");
_Static_assert(__builtin_offsetof(struct thread, alt_hi) == THREAD_ALT_HI, "struct thread");
_Static_assert(FAULT_RING_MASK == RING_SIZE - 1, "intr.S's ring index");

void fault_entry(void);
void fault_run(struct fault_frame *f);

/* The end of the program by fault seq of VP vp, as the kernel would
   have killed it; by sig's plain end if the kernel has no such fault on
   record (-EINVAL: that VP faulted again meanwhile). */
static void sigdie_fault(uint64_t sig, uint64_t vp, uint64_t seq)
{
	if (syscall4(SYS_sigdie, sig, SIGDIE_FAULT, vp, seq) < 0)
		syscall4(SYS_sigdie, sig, 0, 0, 0);
}

/* The handler, or the program's end (see above). */
static void deliver(struct uctx *ctx, void *fpu, int sig, uint64_t result, uint64_t addr,
		    uint64_t from)
{
	int code = (int)(uint32_t)result;
	unsigned vector = (unsigned)(result >> 32) & 0xff, error = (unsigned)(result >> 40);
	struct thread *t = thread_self();
	/* The handler starts on a fresh FPU, as Linux's does: the faulting
	   one (saved at fpu, the handler's uc_mcontext.fpregs) may hold an
	   x87 exception still pending or an unmasked MXCSR one that would
	   fire again at the handler's own floating-point code. The frame's
	   return reloads fpu as the handler left it: one that clears no
	   flag and masks nothing has the instruction fault again, as on
	   Linux (a loop of handler calls, which the quantum preempts). */
	static const uint32_t mxcsr_init = 0x1f80;
	__asm__ volatile("fninit; ldmxcsr %0" : : "m"(mxcsr_init));
	/* Not inside one of ulib's spin locks (crit): the handler's calls
	   into the library could wait for it for good. A fault there is the
	   library's (or a bad pointer given to it): it kills. */
	if (thread_fault_hook && !(t && t->crit) &&
	    thread_fault_hook(sig, code, addr, ctx, fpu, vector, error))
		return;
	sigdie_fault((uint64_t)sig, from >> 32, (uint32_t)from);
}

void fault_run(struct fault_frame *f)
{
	deliver(&f->ctx, f->fpu, (int)f->sig, f->result, f->addr, f->from);
}

void fault_redirect(struct uctx *save, const struct event *e, struct thread *t)
{
	/* No thread ran (code of the VP's own, enabled): there is nobody to
	   run a handler on, and the upcall goes on to the scheduler loop,
	   leaving the faulting context: end the program by the signal. */
	if (!t) {
		sigdie_fault(e->token, e->vp, e->seq);
		return;
	}
	uint64_t alt = 0, rsp = e->ctx.rsp;
	if (e->token < 64 && (thread_fault_onstack & 1UL << e->token) && t->alt_hi &&
	    !(rsp >= t->alt_lo && rsp < t->alt_hi))
		alt = t->alt_hi;
	uint64_t sp = ((alt ? alt : e->ctx.rsp - 128) & ~15UL) - sizeof(struct fault_frame);
	struct fault_frame *f = (struct fault_frame *)sp;
	f->ctx = e->ctx;
	f->sig = e->token;
	f->result = e->result;
	f->addr = e->arg;
	f->from = (uint64_t)e->vp << 32 | (uint32_t)e->seq;
	save->rsp = sp;
	save->rip = (uint64_t)fault_entry;
	save->rflags = 0x202;            /* (the frame keeps the thread's own) */
}

void fault_intr(struct uctx *ctx)
{
	struct vp_page *vpp = vp_self();
	for (struct event *e; (e = vp_next_event(vpp));) {
		struct event ev = *e;
		vpp->ring_head++;        /* taken: before the handler, which may move on */
		if (ev.type == EV_FAULT)
			deliver(ctx, (char *)ctx - 512, (int)ev.token, ev.result, ev.arg,
				(uint64_t)ev.vp << 32 | (uint32_t)ev.seq);
	}
}
