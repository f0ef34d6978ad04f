/*
 * setjmp/longjmp: save and restore what the SysV ABI makes a callee
 * preserve (rbx, rbp, r12-r15, rsp, the return address) plus the MXCSR
 * and x87 control words, like lctx_swap in ctx.S. jmp_buf layout
 * (<setjmp.h>): rbx rbp r12 r13 r14 r15 rsp rip, then mxcsr and fpucw.
 * sigjmp_buf adds two words: whether the signal mask was saved, and the
 * mask (sigsetjmp with savemask nonzero; siglongjmp restores it, so a
 * jump out of a handler leaves its signal unblocked again). setjmp does
 * not save the mask, as glibc's.
 */
	.text
	.globl setjmp, _setjmp, sigsetjmp, longjmp, _longjmp, siglongjmp

/* Save into rdi (rdx is scratch). */
.macro save
	mov %rbx, 0(%rdi)
	mov %rbp, 8(%rdi)
	mov %r12, 16(%rdi)
	mov %r13, 24(%rdi)
	mov %r14, 32(%rdi)
	mov %r15, 40(%rdi)
	lea 8(%rsp), %rdx           /* the caller's rsp after our return */
	mov %rdx, 48(%rdi)
	mov (%rsp), %rdx            /* our return address */
	mov %rdx, 56(%rdi)
	stmxcsr 64(%rdi)
	fnstcw 68(%rdi)
.endm

/* int setjmp(jmp_buf env (rdi)) */
setjmp:
_setjmp:
	save
	xor %eax, %eax
	ret

/* int sigsetjmp(sigjmp_buf env (rdi), int savemask (esi)) */
sigsetjmp:
	save
	mov %rsi, 72(%rdi)
	test %esi, %esi
	jnz __sigjmp_save           /* (C: the mask into 80(%rdi); returns 0) */
	xor %eax, %eax
	ret

/* void siglongjmp(sigjmp_buf env (rdi), int val (esi)) */
siglongjmp:
	cmpl $0, 72(%rdi)
	je longjmp
	push %rdi
	push %rsi
	sub $8, %rsp                /* (aligned for the call) */
	call __sigjmp_restore       /* the mask from 80(%rdi) */
	add $8, %rsp
	pop %rsi
	pop %rdi
	/* fall into longjmp */

/* void longjmp(jmp_buf env (rdi), int val (esi)): setjmp returns val, or 1 for 0 */
longjmp:
_longjmp:
	mov %esi, %eax
	test %eax, %eax
	jnz 1f
	inc %eax
1:	ldmxcsr 64(%rdi)
	fldcw 68(%rdi)
	mov 0(%rdi), %rbx
	mov 8(%rdi), %rbp
	mov 16(%rdi), %r12
	mov 24(%rdi), %r13
	mov 32(%rdi), %r14
	mov 40(%rdi), %r15
	mov 48(%rdi), %rsp
	jmp *56(%rdi)
	.section .note.GNU-stack,"",@progbits
