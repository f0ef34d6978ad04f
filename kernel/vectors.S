/*
 * Interrupt and exception entry. One stub per vector pushes a zero error
 * code where the CPU pushes none, then the vector number, so that every
 * entry builds the same struct trapframe (trap.h) before calling trap().
 */
#include "trap.h"

	.text
	.altmacro
	.macro stub n
	.align 16
vec_\n:
	.if (\n == 8) || ((\n >= 10) && (\n <= 14)) || (\n == 17) || (\n == 21) || (\n == 29) || (\n == 30)
	.else
	pushq $0
	.endif
	pushq $\n
	jmp alltraps
	.endm

	.set i, 0
	.rept 256
	stub %i
	.set i, i + 1
	.endr

alltraps:
	/* Interrupt gates do not clear EFLAGS.AC, and a user may set it:
	   left set, SMAP would be off in every handler. (`syscall` clears
	   it through MSR_FMASK.) clac is #UD without SMAP, hence the test. */
	cmpl $0, have_smap(%rip)
	je 0f
	clac
0:	testb $3, 24(%rsp)          /* from user? cs sits above vector, error, rip */
	jz 1f
	swapgs
1:	push %rax
	push %rbx
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %rbp
	push %r8
	push %r9
	push %r10
	push %r11
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rsp, %rdi
	cld
	call trap
	.globl trapret
trapret:
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rbp
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rbx
	pop %rax
	add $16, %rsp               /* vector, error */
	testb $3, 8(%rsp)
	jz 2f
	swapgs
2:	iretq

	.section .rodata
	.align 8
	.globl vectors
	.macro addr n
	.quad vec_\n
	.endm
vectors:
	.set i, 0
	.rept 256
	addr %i
	.set i, i + 1
	.endr
