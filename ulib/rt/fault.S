/*
 * fault_entry: where a thread resumes after its fault became EV_FAULT on
 * an upcall VP (ulib/rt/fault.c's fault_redirect). rsp points at a struct
 * fault_frame (<animart/fault.h>) below the faulting stack pointer and
 * its red zone, holding the faulting registers; the FPU registers are
 * still the thread's own. Save them into the frame, run the handler
 * (fault_run), then restore the FPU and the frame's (perhaps changed)
 * registers (UCTX_LOAD, <animart/uctxload.h>): rip and rflags go just
 * below the target stack pointer, 128 bytes above the frame.
 * An upcall between two of these instructions saves and later resumes
 * this code like any other of the thread's: it runs enabled throughout.
 */
#include <anima/vp.h>
#include <animart/uctxload.h>

#define CTX 512                        /* FAULT_FRAME_CTX */

	.text
	.globl fault_entry
fault_entry:
	fxsave64 (%rsp)
	mov %rsp, %rdi
	xor %ebp, %ebp                  /* end of backtraces */
	call fault_run
	fxrstor64 (%rsp)
	lea CTX(%rsp), %rdi
	UCTX_LOAD
	popfq
	ret
