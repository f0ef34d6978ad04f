/*
 * A busy loop for preemption tests (included by one program each: it
 * defines code). busy_loop(stop, out, probe) runs until *stop != 0 and
 * returns how many iterations it did; it is written in assembly so that
 *   - [busy_begin, busy_end) brackets exactly its code: an interrupted
 *     context whose rip lies there was interrupted in the loop;
 *   - its state lives only in registers, among them rcx and r11 (which the
 *     syscall instruction clobbers but an interrupt must preserve) and
 *     xmm0/xmm1 (FPU/SSE state), so a context that is saved or resumed
 *     wrongly changes the result.
 * Each iteration also writes the TSC and the pseudo page's quantum_start
 * into *probe: when an upcall interrupts the loop, the probe tells when the
 * loop last ran, and in which quantum, however late the handler itself
 * gets to run (under emulation, the host may stall a CPU at any moment).
 * busy_check(n, out) recomputes the same values for n iterations in C:
 * equality shows every preemption and resumption in between kept the
 * registers intact.
 */
#ifndef PROGS_BUSY_H
#define PROGS_BUSY_H

#include <stdint.h>
#include <anima/vp.h>

struct busy_out {
	uint64_t a, b, c, d;
	double sum;             /* 1.0 added per iteration: exact below 2^53 */
};

struct busy_probe {
	volatile uint64_t tsc;            /* rdtsc in the last iteration */
	volatile uint64_t quantum_start;  /* pp->quantum_start then */
};

#define PP_QUANTUM_START 72
#define BUSY_STR_(x) #x
#define BUSY_STR(x) BUSY_STR_(x)
_Static_assert(__builtin_offsetof(struct pseudo_page, quantum_start) == PP_QUANTUM_START, "pp");

uint64_t busy_loop(volatile int *stop, struct busy_out *out, struct busy_probe *probe);
extern char busy_begin[], busy_end[];

__asm__(
	"	.text\n"
	"	.globl busy_loop, busy_begin, busy_end\n"
	"busy_begin:\n"
	"busy_loop:\n"
	"	push %rbx\n"
	"	mov %rdx, %rbx\n"                 /* probe (rdtsc needs rdx) */
	"	xor %ecx, %ecx\n"                 /* i */
	"	xor %r8d, %r8d\n"                 /* a */
	"	mov $0x1234, %r9d\n"              /* b */
	"	xor %r10d, %r10d\n"               /* c */
	"	mov $1, %r11d\n"                  /* d */
	"	pxor %xmm0, %xmm0\n"              /* sum */
	"	mov $1, %eax\n"
	"	cvtsi2sd %rax, %xmm1\n"           /* 1.0 */
	"1:	add %rcx, %r8\n"                  /* a += i */
	"	xor %r8, %r9\n"                   /* b = rol(b ^ a, 13) */
	"	rol $13, %r9\n"
	"	add %r9, %r10\n"                  /* c += b */
	"	lea (%r11,%r11,2), %r11\n"        /* d = 3d + i */
	"	add %rcx, %r11\n"
	"	addsd %xmm1, %xmm0\n"             /* sum += 1.0 */
	"	rdtsc\n"                          /* probe: when, and which quantum */
	"	shl $32, %rdx\n"
	"	or %rdx, %rax\n"
	"	mov %rax, 0(%rbx)\n"
	"	mov %gs:" BUSY_STR(PP_QUANTUM_START) ", %rax\n"
	"	mov %rax, 8(%rbx)\n"
	"	inc %rcx\n"
	"	cmpl $0, (%rdi)\n"
	"	je 1b\n"
	"	mov %r8, 0(%rsi)\n"
	"	mov %r9, 8(%rsi)\n"
	"	mov %r10, 16(%rsi)\n"
	"	mov %r11, 24(%rsi)\n"
	"	movsd %xmm0, 32(%rsi)\n"
	"	mov %rcx, %rax\n"
	"	pop %rbx\n"
	"	ret\n"
	"busy_end:\n");

static inline int in_busy(uint64_t rip)
{
	return rip >= (uint64_t)busy_begin && rip < (uint64_t)busy_end;
}

/* Do n iterations of busy_loop in C; 1 if `out` holds what they give. */
static inline int busy_check(uint64_t n, const struct busy_out *out)
{
	uint64_t a = 0, b = 0x1234, c = 0, d = 1;
	for (uint64_t i = 0; i < n; i++) {
		a += i;
		b ^= a;
		b = b << 13 | b >> 51;
		c += b;
		d = d * 3 + i;
	}
	return a == out->a && b == out->b && c == out->c && d == out->d &&
	       out->sum == (double)n;
}

#endif
