/*
 * getcontext, setcontext, swapcontext and makecontext's trampoline
 * (<ucontext.h>; the C half, with the signal mask, is ucontext.c). A
 * context is what a call must preserve (rbx, rbp, r12-r15, rsp, the
 * return address, MXCSR, the x87 control word) plus, for a context
 * makecontext made, its function's six register arguments, which
 * setcontext loads too. A saved context resumes as a return of 0 from
 * the getcontext or swapcontext that saved it.
 */
#include <sys/ucontext.h>

#define G(r) UC_GREG(r)(%rdi)

	.text
	.globl getcontext, setcontext, swapcontext, __uc_trampoline

/* Save the caller's context into rdi: as if the call had returned. */
.macro save
	mov %rbx, G(11)                  /* REG_RBX */
	mov %rbp, G(10)                  /* REG_RBP */
	mov %r12, G(4)
	mov %r13, G(5)
	mov %r14, G(6)
	mov %r15, G(7)
	lea 8(%rsp), %rax
	mov %rax, G(15)                  /* REG_RSP */
	mov (%rsp), %rax
	mov %rax, G(16)                  /* REG_RIP */
	stmxcsr UC_MXCSR(%rdi)
	fnstcw UC_FPUCW(%rdi)
.endm

/* int getcontext(ucontext_t *ucp (rdi)) */
getcontext:
	test %rdi, %rdi
	jz __uc_einval
	save
	jmp __uc_getmask                 /* (C; returns 0) */

/* int setcontext(const ucontext_t *ucp (rdi)) */
setcontext:
	push %rdi                        /* (and the stack is aligned for the call) */
	call __uc_setmask                /* 0, or -1 (EINVAL) for a bad context */
	pop %rdi
	test %eax, %eax
	jnz 9f
	jmp load
9:	ret

/* int swapcontext(ucontext_t *oucp (rdi), const ucontext_t *ucp (rsi)) */
swapcontext:
	test %rdi, %rdi
	jz __uc_einval
	save
	push %rsi
	call __uc_swapmask               /* (oucp, ucp): 0, or -1 (EINVAL) */
	pop %rdi
	test %eax, %eax
	jnz 9b
	/* fall into load, with rdi = ucp */

/* Resume the context at rdi. */
load:
	ldmxcsr UC_MXCSR(%rdi)
	fldcw UC_FPUCW(%rdi)
	mov G(11), %rbx
	mov G(10), %rbp
	mov G(4), %r12
	mov G(5), %r13
	mov G(6), %r14
	mov G(7), %r15
	mov G(15), %rsp
	mov G(9), %rsi                   /* REG_RSI ... REG_R9: makecontext's arguments */
	mov G(12), %rdx
	mov G(14), %rcx
	mov G(0), %r8
	mov G(1), %r9
	mov G(16), %r11                  /* (r11: scratch at every call) */
	mov G(8), %rdi                   /* REG_RDI, last */
	xor %eax, %eax
	jmp *%r11

/* Where a makecontext function returns to: rbx holds its uc_link, which
   __uc_end resumes (or it ends the process). */
__uc_trampoline:
	mov %rbx, %rdi
	and $-16, %rsp
	call __uc_end                    /* does not return */
	ud2

	.section .note.GNU-stack,"",@progbits
