/*
 * Light (voluntary) context switch: only what the SysV ABI makes the
 * callee preserve — rbx, rbp, r12-r15, rsp, the return address, and the
 * MXCSR and x87 control words. Everything else is dead across a call.
 * Layout: struct lctx in <animart/thread.h> (offsets checked there). The saved
 * rsp points at the return address, so resuming is `mov rsp; ret`.
 *
 * lctx_swap clears from->busy once it runs on the new stack: a package
 * that makes a thread visible to other VPs before switching away from it
 * (queued, parked) sets busy first, and whoever resumes the thread waits
 * for busy == 0 — by then nothing uses the old stack any more.
 */
	.text
	.globl lctx_swap, lctx_jump, lctx_exit, lctx_start, lctx_swap_call, lctx_jump_call
	.globl lctx_swap_tls, lctx_swap_park, lctx_swap_park_tls, lctx_jump_tls

/* to's FS base (its TLS pointer, struct lctx.fsbase at 72) if it has one:
   user code may write FS itself (CR4.FSGSBASE, set by the kernel, which
   keeps each VP's value across VP switches). Clobbers rax. */
.macro LOADFS to
	mov 72(\to), %rax
	test %rax, %rax
	jz 9f
	wrfsbase %rax
9:
.endm

/* Save the caller's callee-saved registers, rsp and FPU control words
   into the lctx at \from. */
.macro SAVE from
	mov %rbx, 0(\from)
	mov %rbp, 8(\from)
	mov %r12, 16(\from)
	mov %r13, 24(\from)
	mov %r14, 32(\from)
	mov %r15, 40(\from)
	mov %rsp, 48(\from)
	stmxcsr 64(\from)
	fnstcw 68(\from)
.endm

/* Load them from the lctx at \to: from here on we run on to's stack. */
.macro RESTORE to
	ldmxcsr 64(\to)
	fldcw 68(\to)
	mov 0(\to), %rbx
	mov 8(\to), %rbp
	mov 16(\to), %r12
	mov 24(\to), %r13
	mov 32(\to), %r14
	mov 40(\to), %r15
	mov 48(\to), %rsp
.endm

/* lctx_swap for programs with TLS (lctx_swap_fn, <animart/thread.h>). */
lctx_swap_tls:
	LOADFS %rsi
	/* fall through */
/* void lctx_swap(struct lctx *from (rdi), const struct lctx *to (rsi)) */
lctx_swap:
	SAVE %rdi                   /* rsp -> our return address */
	RESTORE %rsi
	movl $0, 56(%rdi)           /* from->busy: off its stack now */
	ret

/* void lctx_swap_park(struct lctx *from (rdi), const struct lctx *to (rsi)):
   a block's switch in one step, for a runtime thread (struct uthread,
   <animart/vprt.h>). As lctx_swap, then, on to's stack, once from is saved and
   nothing uses its stack any more, commit the thread's park: PARK_RUN ->
   PARK_PARKED (<animart/thread.h>; its park word lies PARK_BELOW_LC bytes below
   its lctx, checked in rt_switch.c). If a permit came first, the commit
   fails and rt_park_cancel(from) runs there (it consumes the permit and
   makes the thread runnable again). What rt_finish_prev does for a park,
   without the trip through it. lctx_swap_park_tls loads to's FS base
   first (lctx_swap_park_fn, <animart/thread.h>). */
#define PARK_BELOW_LC 0x60
lctx_swap_park_tls:
	LOADFS %rsi
	/* fall through */
lctx_swap_park:
	SAVE %rdi
	RESTORE %rsi
	xor %eax, %eax              /* PARK_RUN */
	mov $2, %edx                /* PARK_PARKED */
	lock cmpxchg %edx, -PARK_BELOW_LC(%rdi)
	jne 1f
	ret
1:	push %rbx                   /* to's; the callee keeps the callee-saved ones */
	mov %rsp, %rbx
	and $-16, %rsp
	call rt_park_cancel         /* rdi is from still */
	mov %rbx, %rsp
	pop %rbx
	ret

/* void lctx_swap_call(struct lctx *from (rdi), const struct lctx *to (rsi),
			void (*fn)(void *) (rdx), void *arg (rcx)):
   as lctx_swap, then call fn(arg) on to's stack (below its resume
   address) before resuming to: work that must wait until from is saved
   and off its stack, done by the switch itself. */
lctx_swap_call:
	SAVE %rdi
	movl $0, 56(%rdi)
	mov %rsi, %rdi
	/* fall through */

/* void lctx_jump_call(const struct lctx *to (rdi), void (*fn)(void *) (rdx),
			void *arg (rcx)): continue to, calling fn(arg) first. */
lctx_jump_call:
	LOADFS %rdi
	RESTORE %rdi
	push %rbx                   /* to's; fn keeps the callee-saved ones */
	mov %rsp, %rbx
	and $-16, %rsp
	mov %rcx, %rdi
	call *%rdx
	mov %rbx, %rsp
	pop %rbx
	ret

/* void lctx_exit(const struct lctx *to (rdi), volatile int *done (rsi)):
   continue *to, then store 0 to *done (the old stack is free). */
lctx_exit:
	LOADFS %rdi
	ldmxcsr 64(%rdi)
	fldcw 68(%rdi)
	mov 48(%rdi), %rsp
	movl $0, (%rsi)
	jmp 1f

/* void lctx_jump(const struct lctx *to (rdi)); lctx_jump_tls loads to's
   FS base first (lctx_jump_fn, <animart/thread.h>). */
lctx_jump_tls:
	LOADFS %rdi
	/* fall through */
lctx_jump:
	ldmxcsr 64(%rdi)
	fldcw 68(%rdi)
	mov 48(%rdi), %rsp
1:	mov 0(%rdi), %rbx
	mov 8(%rdi), %rbp
	mov 16(%rdi), %r12
	mov 24(%rdi), %r13
	mov 32(%rdi), %r14
	mov 40(%rdi), %r15
	ret

/* First code of a new context (lctx_make put its address where lctx_jump
   will `ret` to): r12 = fn, r13 = arg. */
lctx_start:
	and $-16, %rsp
	mov %r13, %rdi
	call *%r12
	ud2
