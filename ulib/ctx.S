/*
 * Light (voluntary) context switch: only what the SysV ABI makes the
 * callee preserve — rbx, rbp, r12-r15, rsp, the return address, and the
 * MXCSR and x87 control words. Everything else is dead across a call.
 * Layout: struct lctx in <thread.h> (offsets checked there). The saved
 * rsp points at the return address, so resuming is `mov rsp; ret` (the
 * rip field is unused).
 */
	.text
	.globl lctx_swap, lctx_jump, lctx_start
/* void lctx_swap(struct lctx *from (rdi), const struct lctx *to (rsi)) */
lctx_swap:
	mov %rbx, 0(%rdi)
	mov %rbp, 8(%rdi)
	mov %r12, 16(%rdi)
	mov %r13, 24(%rdi)
	mov %r14, 32(%rdi)
	mov %r15, 40(%rdi)
	mov %rsp, 48(%rdi)          /* -> our return address */
	stmxcsr 64(%rdi)
	fnstcw 68(%rdi)
	mov %rsi, %rdi
/* void lctx_jump(const struct lctx *to (rdi)) */
lctx_jump:
	ldmxcsr 64(%rdi)
	fldcw 68(%rdi)
	mov 0(%rdi), %rbx
	mov 8(%rdi), %rbp
	mov 16(%rdi), %r12
	mov 24(%rdi), %r13
	mov 32(%rdi), %r14
	mov 40(%rdi), %r15
	mov 48(%rdi), %rsp
	ret

/* First code of a new context (lctx_make put its address where lctx_jump
   will `ret` to): r12 = fn, r13 = arg. */
lctx_start:
	and $-16, %rsp
	mov %r13, %rdi
	call *%r12
	ud2
