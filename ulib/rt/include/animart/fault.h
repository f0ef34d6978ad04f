/* Faults as signals (EV_FAULT: kernel/fault.c, ulib/rt/fault.c, docs/abi.md). */
#ifndef ANIMART_FAULT_H
#define ANIMART_FAULT_H

/* For ulib/rt/intr.S (checked in ulib/rt/fault.c) */
#define THREAD_ALT_LO 96                 /* struct thread's alt_lo, alt_hi */
#define THREAD_ALT_HI 104
#define FAULT_RING_MASK 15               /* RING_SIZE - 1 */

#ifndef __ASSEMBLER__
#include <stdint.h>
#include <anima/vp.h>

struct thread;

/* What the faulting thread runs on (ulib/rt/fault.S's frame): its FPU
   state, its registers, and the event's description of the fault. */
struct fault_frame {
	uint8_t fpu[512];                /* fxsave image, 16-aligned */
	struct uctx ctx;                 /* resumed when the handler returns */
	uint64_t sig, result, addr;      /* the event's token, result, arg */
	uint64_t from;                   /* its vp << 32 | seq (low 32 bits): SYS_sigdie's */
};
#define FAULT_FRAME_CTX 512
_Static_assert(__builtin_offsetof(struct fault_frame, ctx) == FAULT_FRAME_CTX, "fault_frame");
_Static_assert(sizeof(struct fault_frame) % 16 == 0, "fault_frame keeps the stack aligned");

/* The upcall handler saw EV_FAULT e for the thread whose context is
   *save (the VP page's): that thread resumes in fault_entry instead,
   on a frame below its stack pointer holding the fault. */
void fault_redirect(struct uctx *save, const struct event *e, struct thread *t);

/* A classic VP's interrupt (intr_run): any EV_FAULT in the ring is for
   the context ctx (fpu just below it), run here and now. */
void fault_intr(struct uctx *ctx);

/* The program's part (ulib/libc/sigfault.c's thread_fault_hook, which
   sigaction installs here): run sig's handler for the calling thread
   with si_code `code`, si_addr `addr`, and a ucontext of ctx (and fpu)
   that the handler may change; the exception vector and error code for
   its REG_TRAPNO and REG_ERR. 0 if the thread blocks sig or its action
   is SIG_DFL or SIG_IGN: the fault then ends the program, as the kernel
   ends it (the context runs again with the signal's disposition back at
   its default, and faults again). 0 here: every fault ends it. */
/* The signals whose handlers run on the alternate stack (SA_ONSTACK,
   bit sig; ulib/libc/signal.c's sigaction keeps it): a fault's frame
   goes atop the faulting thread's alternate stack (struct thread's
   alt_lo, alt_hi) too, unless it runs there already. */
extern volatile uint64_t thread_fault_onstack;

typedef int (*thread_fault_fn)(int sig, int code, uint64_t addr, struct uctx *ctx, void *fpu,
			       unsigned vector, unsigned error);
extern thread_fault_fn thread_fault_hook;

#endif /* __ASSEMBLER__ */
#endif
