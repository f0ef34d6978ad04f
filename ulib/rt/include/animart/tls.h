/*
 * Thread-local storage: `__thread` variables and a per-thread errno
 * (x86-64 ELF TLS, variant II). Each thread's TLS block sits just below
 * its thread control block (struct tcb); the FS base points at the TCB,
 * whose first word points at itself (%fs:0, as the ABI wants), and the
 * linker addresses variables at fixed negative offsets from it.
 *
 * ulib/rt/tls.c keeps the image (.tdata/.tbss, ulib/user.ld) and carves
 * blocks out of the top of thread stacks, so a block lives and dies with
 * its thread's stack: nothing to free, nothing to leak. The FS base is
 * switched by user code (wrfsbase; the kernel sets CR4.FSGSBASE and
 * keeps each VP's FS base): by the VP runtime's context switch (struct
 * lctx.fsbase), by kthread once per VP.
 *
 * TLS is on when the program has a TLS segment or the POSIX layer asks
 * for it (tls_setup). Otherwise no FS base is ever set, switches skip
 * it, and errno is one global, as it was.
 */
#ifndef ULIB_TLS_H
#define ULIB_TLS_H

#include <stdint.h>

struct tcb {
	struct tcb *self;            /* %fs:0 */
	int err;                     /* this thread's errno */
	int pad;
	uint64_t spare[6];
};
_Static_assert(sizeof(struct tcb) == 64, "tcb");

extern int tls_on;               /* threads get TLS blocks and FS bases */
/* Bytes zeroed for the POSIX layer just above each TCB (its per-thread
   state, found from struct thread.tcb): set before tls_setup. */
extern uint64_t tls_extra;

/* Turn TLS on if the program has a TLS segment, or `force` (the POSIX
   layer): give the calling VP a block and pick the TLS-switching yield.
   Before any thread is created; idempotent. */
void tls_setup(int force);

uint64_t tls_area_on(void);
uint64_t tls_below_tcb(void);   /* the TLS block under the TCB: a stack's top is below it */
uint64_t tls_place_on(char *mem, uint64_t size, uint64_t *stack);

/* Bytes a thread's stack needs on top for its block and TCB (0: off). */
static inline uint64_t tls_area(void)
{
	return tls_on ? tls_area_on() : 0;
}

/* Put a fresh block and TCB at the top of [mem, mem+size): returns the
   FS base for the thread (0 if TLS is off) and sets *stack to the bytes
   left below for the stack. */
static inline uint64_t tls_place(char *mem, uint64_t size, uint64_t *stack)
{
	if (tls_on)
		return tls_place_on(mem, size, stack);
	*stack = size;
	return 0;
}

static inline void tls_set_fsbase(uint64_t fs)
{
	__asm__ volatile("wrfsbase %0" ::"r"(fs) : "memory");
}

/* The calling thread's TCB, or 0 (TLS off, or a VP with no block). */
static inline struct tcb *tls_tcb(void)
{
	uint64_t fs = 0;
	if (tls_on)
		__asm__ volatile("rdfsbase %0" : "=r"(fs));
	return (struct tcb *)fs;
}

#endif
