/*
 * Machine contexts (<ucontext.h>, ulib/ucontext.S): what getcontext saves
 * and setcontext, swapcontext and makecontext's trampoline load. The
 * register array follows glibc's names and order (REG_RIP & co.), so code
 * that names a register compiles; the layout is Anima's own (no program
 * binary crosses systems). The offsets the assembly uses are UC_*, each
 * checked against the struct in ulib/ucontext.c.
 */
#ifndef ULIB_SYS_UCONTEXT_H
#define ULIB_SYS_UCONTEXT_H

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <signal.h>

typedef long long greg_t;
#define NGREG 23
typedef greg_t gregset_t[NGREG];

enum {
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
	REG_RDI, REG_RSI, REG_RBP, REG_RBX, REG_RDX, REG_RAX, REG_RCX, REG_RSP,
	REG_RIP, REG_EFL, REG_CSGSFS, REG_ERR, REG_TRAPNO, REG_OLDMASK, REG_CR2,
};

/* (stack_t, a context's uc_stack: <signal.h>) */
typedef struct {
	gregset_t gregs;
	void *fpregs;                    /* 0: the FPU state is not saved, */
	unsigned int mxcsr;              /* only its control words, as the */
	unsigned short fpucw;            /* ABI has callers expect */
} mcontext_t;

typedef struct ucontext_t {
	unsigned long uc_flags;
	struct ucontext_t *uc_link;      /* resumed when a makecontext function returns */
	stack_t uc_stack;
	mcontext_t uc_mcontext;
	sigset_t uc_sigmask;
} ucontext_t;
#endif

/* Offsets, for ulib/ucontext.S. */
#define UC_GREGS   40
#define UC_GREG(r) (UC_GREGS + 8 * (r))
#define UC_MXCSR   232
#define UC_FPUCW   236

#endif
