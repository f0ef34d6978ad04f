/*
 * fault_entry: where a thread resumes after its fault became EV_FAULT on
 * an upcall VP (ulib/rt/fault.c's fault_redirect). rsp points at a struct
 * fault_frame (<animart/fault.h>) below the faulting stack pointer and
 * its red zone, holding the faulting registers; the FPU registers are
 * still the thread's own. Save them into the frame, run the handler
 * (fault_run), then restore the FPU and the frame's (perhaps changed)
 * registers. As ever in Anima user code (-mno-red-zone), rip and rflags
 * go just below the target stack pointer, 128 bytes above the frame.
 * An upcall between two of these instructions saves and later resumes
 * this code like any other of the thread's: it runs enabled throughout.
 */
#include <anima/vp.h>

#define CTX 512                        /* FAULT_FRAME_CTX */

	.text
	.globl fault_entry
fault_entry:
	fxsave64 (%rsp)
	mov %rsp, %rdi
	xor %ebp, %ebp                  /* end of backtraces */
	call fault_run
	fxrstor64 (%rsp)
	lea CTX(%rsp), %rdi
	mov UCTX_RSP(%rdi), %rsp
	pushq UCTX_RIP(%rdi)
	pushq UCTX_RFLAGS(%rdi)
	mov UCTX_RAX(%rdi), %rax
	mov UCTX_RBX(%rdi), %rbx
	mov UCTX_RCX(%rdi), %rcx
	mov UCTX_RDX(%rdi), %rdx
	mov UCTX_RSI(%rdi), %rsi
	mov UCTX_RBP(%rdi), %rbp
	mov UCTX_R8(%rdi), %r8
	mov UCTX_R9(%rdi), %r9
	mov UCTX_R10(%rdi), %r10
	mov UCTX_R11(%rdi), %r11
	mov UCTX_R12(%rdi), %r12
	mov UCTX_R13(%rdi), %r13
	mov UCTX_R14(%rdi), %r14
	mov UCTX_R15(%rdi), %r15
	mov UCTX_RDI(%rdi), %rdi
	popfq
	ret
