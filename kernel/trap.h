/*
 * The trap frame: what every entry from user mode (syscall, interrupt,
 * exception) leaves at the top of the VP's kernel stack. vectors.S and
 * syscall.S push it; the offsets below are used by that assembly.
 */
#ifndef TRAP_H
#define TRAP_H

#define TF_R15     0
#define TF_RAX     (14 * 8)
#define TF_VECTOR  (15 * 8)
#define TF_RIP     (17 * 8)
#define TF_CS      (18 * 8)
#define TF_RFLAGS  (19 * 8)
#define TF_RSP     (20 * 8)
#define TF_SS      (21 * 8)
#define TF_SIZE    (22 * 8)

/* Vectors */
#define T_DIVIDE   0
#define T_NMI      2
#define T_DOUBLE   8
#define T_PGFLT    14
#define T_TIMER    0x40     /* LAPIC timer */
#define T_RESCHED  0x41     /* IPI: look at your run queue */
#define T_TLB      0x42     /* IPI: flush TLB for a space */
#define T_HALT     0x43     /* IPI: stop (panic) */
#define T_DISK     0x44     /* virtio-blk completions (MSI-X; blk.c) */
#define T_SPURIOUS 0xff
#define T_SYSCALL  0x100    /* pseudo-vector marking a syscall frame */

/* Segment selectors (GDT in cpu.c). SYSRET needs udata right before ucode. */
#define KCODE_SEL  0x08
#define KDATA_SEL  0x10
#define UDATA_SEL  (0x20 | 3)
#define UCODE_SEL  (0x28 | 3)
#define TSS_SEL    0x30

#ifndef __ASSEMBLER__
#include <stdint.h>
struct trapframe {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;   /* pushed by the CPU */
};
_Static_assert(__builtin_offsetof(struct trapframe, r15) == TF_R15, "tf");
_Static_assert(__builtin_offsetof(struct trapframe, rax) == TF_RAX, "tf");
_Static_assert(__builtin_offsetof(struct trapframe, vector) == TF_VECTOR, "tf");
_Static_assert(__builtin_offsetof(struct trapframe, rip) == TF_RIP, "tf");
_Static_assert(__builtin_offsetof(struct trapframe, cs) == TF_CS, "tf");
_Static_assert(__builtin_offsetof(struct trapframe, rflags) == TF_RFLAGS, "tf");
_Static_assert(__builtin_offsetof(struct trapframe, rsp) == TF_RSP, "tf");
_Static_assert(__builtin_offsetof(struct trapframe, ss) == TF_SS, "tf");
_Static_assert(sizeof(struct trapframe) == TF_SIZE, "tf");
#endif

#endif
