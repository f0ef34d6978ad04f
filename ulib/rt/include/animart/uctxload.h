/*
 * UCTX_LOAD, for assembly: load a struct uctx's registers (<anima/vp.h>)
 * from the one %rdi points at, and leave its rflags then rip pushed on
 * the stack it moves to, for the caller's own popfq; ret. Shared by a
 * thread's return from a fault's handler (ulib/rt/fault.S) and from a
 * classic VP's interrupt (ulib/rt/intr.S), which does one thing more
 * between the last load and the popfq. A macro, not a call: the
 * interrupt's return path pays no instruction for the sharing. As ever
 * in Anima user code (-mno-red-zone), the two words pushed just below
 * the target stack pointer hold nothing of its code's.
 */
#ifndef ANIMART_UCTXLOAD_H
#define ANIMART_UCTXLOAD_H
#ifdef __ASSEMBLER__
#include <anima/vp.h>

.macro UCTX_LOAD
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
.endm

#endif /* __ASSEMBLER__ */
#endif
