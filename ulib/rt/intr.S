/*
 * The user half of a classic VP's interrupts (kernel/intr.c, docs/abi.md).
 * intr_entry: the kernel enters here with rdi = VP page, on the
 * interrupted stack below its stack pointer (a fault's frame may go on
 * the thread's alternate signal stack instead, below), `disabled` set and the
 * interrupted context in vpp->save. Copy that context and the FPU state
 * into a frame here, enable (an interrupt may now nest below this frame),
 * and let intr_run decide what to run (ulib/rt/intr.c). Then restore the
 * frame: disabled while the stack pointer moves back above the frame (a
 * nested interrupt would land on it), enabled again only once nothing
 * but rflags and rip remain to pop, both above the new stack pointer.
 * An interrupt that comes while disabled stays queued in the kernel and
 * is taken at the next return to user mode (a clock tick at the latest).
 * All Anima user code is built with -mno-red-zone, so the words pushed
 * just below the interrupted rsp hold nothing of its code's.
 */
#include <anima/vp.h>
#include <animart/fault.h>
#include <animart/uctxload.h>

#define FRAME (512 + 144)               /* fxsave area, then a struct uctx */

	.text
	.globl intr_entry
intr_entry:
	/* A fault (EV_FAULT, the one event a classic VP's ring holds:
	   ulib/rt/fault.c) whose handler asks for the alternate stack
	   (thread_fault_onstack), on a thread that has one and is not on it:
	   the frame goes atop that stack, since the faulting one may have no
	   room left (an overflow). Still disabled: nothing else lands there. */
	mov VPP_RING_HEAD(%rdi), %eax
	cmp VPP_RING_TAIL(%rdi), %eax
	je 2f
	and $FAULT_RING_MASK, %eax
	imul $EVENT_SIZE, %eax, %eax
	cmpl $EV_FAULT, VPP_RING + EVENT_TYPE(%rdi,%rax)
	jne 2f
	mov VPP_RING + EVENT_TOKEN(%rdi,%rax), %rcx
	cmp $64, %rcx
	jae 2f
	mov thread_fault_onstack(%rip), %rdx
	bt %rcx, %rdx
	jnc 2f
	mov VPP_CURRENT(%rdi), %rax
	test %rax, %rax
	jz 2f
	mov THREAD_ALT_HI(%rax), %rcx
	test %rcx, %rcx
	jz 2f
	mov VPP_SAVE + UCTX_RSP(%rdi), %rdx     /* the faulting stack pointer */
	cmp THREAD_ALT_LO(%rax), %rdx
	jb 1f
	cmp %rcx, %rdx
	jb 2f                           /* on the alternate stack already */
1:	mov %rcx, %rsp
2:	sub $FRAME, %rsp
	and $-16, %rsp
	fxsave64 (%rsp)
	mov %rdi, %rdx                  /* the VP page */
	lea VPP_SAVE(%rdx), %rsi
	lea 512(%rsp), %rdi
	mov $18, %ecx                   /* sizeof(struct uctx) / 8 */
	cld
	rep movsq
	movl $0, VPP_DISABLED(%rdx)
	xor %ebp, %ebp                  /* end of backtraces */
	lea 512(%rsp), %rdi
	call intr_run
	mov %rsp, %rdi
	fxrstor64 (%rdi)
	movl $1, %gs:(VPPAGE_BASE - PSEUDO_BASE + VPP_DISABLED)
	lea 512(%rdi), %rdi
	UCTX_LOAD
	movl $0, %gs:(VPPAGE_BASE - PSEUDO_BASE + VPP_DISABLED)
	popfq
	ret
