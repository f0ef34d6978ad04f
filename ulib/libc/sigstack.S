/*
 * void __sig_call_on(void *top, void *fn, int sig, siginfo_t *si, void *uc):
 * fn(sig, si, uc) with the stack pointer at top (16-byte aligned), then
 * back on the caller's stack: a handler installed with SA_ONSTACK runs on
 * its thread's alternate signal stack (sigaltstack, ulib/signal.c).
 * rbp, callee-saved, keeps the caller's stack pointer across the call.
 */
	.text
	.globl __sig_call_on
__sig_call_on:
	push %rbp
	mov %rsp, %rbp
	mov %rdi, %rsp
	mov %rsi, %rax
	mov %edx, %edi
	mov %rcx, %rsi
	mov %r8, %rdx
	call *%rax
	mov %rbp, %rsp
	pop %rbp
	ret
	.section .note.GNU-stack,"",@progbits
