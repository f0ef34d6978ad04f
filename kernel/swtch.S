/*
 * swtch(struct context **from, struct context *to): save the callee-saved
 * registers on this stack, store the stack pointer in *from, and resume
 * `to`. The layout matches struct context in vp.h.
 */
	.text
	.globl swtch
swtch:
	push %rbp
	push %rbx
	push %r12
	push %r13
	push %r14
	push %r15
	mov %rsp, (%rdi)
	mov %rsi, %rsp
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbx
	pop %rbp
	ret

/* A new VP's first context returns here, just below its trapframe. */
	.globl vp_first
vp_first:
	call vp_started
	jmp trapret
