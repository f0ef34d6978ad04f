/*
 * The `syscall` instruction lands here (MSR_LSTAR) with user rip in rcx,
 * user rflags in r11, interrupts off (MSR_FMASK) and the user's stack and
 * GS still loaded. We switch to the VP's kernel stack and build the same
 * trapframe an interrupt would, so every kernel path sees one layout.
 * Return is by sysretq when the frame is an ordinary user frame with a
 * canonical rip (sysret with a non-canonical rcx faults in ring 0 on
 * Intel), else by the general iretq path. A non-canonical rip never gets
 * this far: iretq to one faults in ring 0 on Intel too, so
 * user_return_checks (trap.c) kills the space first; the test below is
 * a second line.
 */
#include "trap.h"
#include "cpu.h"

	.text
	.globl syscall_entry
syscall_entry:
	swapgs
	mov %rsp, %gs:CPU_USER_RSP
	mov %gs:CPU_KSTACK, %rsp
	pushq $UDATA_SEL
	pushq %gs:CPU_USER_RSP
	pushq %r11
	pushq $UCODE_SEL
	pushq %rcx
	pushq $0
	pushq $T_SYSCALL
	push %rax
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
	call syscall

	cmpq $UCODE_SEL, TF_CS(%rsp)
	jne trapret
	cmpq $UDATA_SEL, TF_SS(%rsp)
	jne trapret
	mov TF_RIP(%rsp), %rax
	shr $47, %rax
	jnz trapret
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
	mov 16(%rsp), %rcx          /* rip    (vector, error come first) */
	mov 32(%rsp), %r11          /* rflags */
	mov 40(%rsp), %rsp          /* user rsp */
	swapgs
	sysretq
