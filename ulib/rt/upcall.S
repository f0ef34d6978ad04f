/*
 * The user half of the upcall protocol (<anima/vp.h>, docs/abi.md).
 *
 * upcall_entry: the kernel enters here with rdi = VP page, rsi = pseudo-
 * register page, software interrupts disabled. The FPU/SSE registers still
 * hold the interrupted (or just-blocked) thread's state; save them in the
 * VP page before any C code can touch them, then call the C handler kept
 * in the VP page (user_data[0]), so each VP reaches the package that owns
 * it. The handler never returns: it ends in vp_resume().
 *
 * vp_resume(vpp): restore FPU state from vpp->fpu and the registers from
 * vpp->save, and enable software interrupts, as one step as far as events
 * are concerned. [vp_resume_lo, vp_resume_hi) is the resume window: the
 * kernel treats an event that interrupts it as interrupting the context in
 * vpp->save (it delivers the upcall without overwriting save), so nothing
 * half-restored is ever captured. Inside the window we clear `disabled` and
 * then check `pending`: an event queued while we were disabled sends us
 * back to the handler instead of being left behind.
 *
 * Restoring writes rip and rflags just below the target stack pointer,
 * which is why all Anima user code is built with -mno-red-zone.
 */
#include <anima/vp.h>

	.text
	.globl upcall_entry, vp_resume, vp_resume_lo, vp_resume_hi
upcall_entry:
	fxsave64 VPP_FPU(%rdi)
	and $-16, %rsp
	xor %ebp, %ebp                /* end of backtraces */
	call *VPP_HANDLER(%rdi)
	ud2                           /* handlers never return */

vp_resume:
	fxrstor64 VPP_FPU(%rdi)
vp_resume_lo:
	movl $0, VPP_DISABLED(%rdi)
	cmpl $0, VPP_PENDING(%rdi)
	jne 1f
	mov VPP_SAVE + UCTX_RSP(%rdi), %rsp
	pushq VPP_SAVE + UCTX_RIP(%rdi)
	pushq VPP_SAVE + UCTX_RFLAGS(%rdi)
	mov VPP_SAVE + UCTX_RAX(%rdi), %rax
	mov VPP_SAVE + UCTX_RBX(%rdi), %rbx
	mov VPP_SAVE + UCTX_RCX(%rdi), %rcx
	mov VPP_SAVE + UCTX_RDX(%rdi), %rdx
	mov VPP_SAVE + UCTX_RSI(%rdi), %rsi
	mov VPP_SAVE + UCTX_RBP(%rdi), %rbp
	mov VPP_SAVE + UCTX_R8(%rdi), %r8
	mov VPP_SAVE + UCTX_R9(%rdi), %r9
	mov VPP_SAVE + UCTX_R10(%rdi), %r10
	mov VPP_SAVE + UCTX_R11(%rdi), %r11
	mov VPP_SAVE + UCTX_R12(%rdi), %r12
	mov VPP_SAVE + UCTX_R13(%rdi), %r13
	mov VPP_SAVE + UCTX_R14(%rdi), %r14
	mov VPP_SAVE + UCTX_R15(%rdi), %r15
	mov VPP_SAVE + UCTX_RDI(%rdi), %rdi
	popfq
	ret
1:	/* events arrived while we were disabled: back to the handler, with
	   save still holding the context we were about to resume */
	movl $1, VPP_DISABLED(%rdi)
	mov %rdi, %rsi
	sub $(VPPAGE_BASE - PSEUDO_BASE), %rsi     /* this VP's pseudo-register page */
	mov VPP_UPCALL_STACK(%rdi), %rsp
	jmp upcall_entry
vp_resume_hi:
