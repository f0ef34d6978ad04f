/*
 * Per-CPU data, reached through the GS base (gs:0 holds a pointer to the
 * struct itself). syscall.S uses the CPU_* offsets.
 */
#ifndef CPU_H
#define CPU_H

#define CPU_SELF       0
#define CPU_KSTACK     8     /* top of the current VP's kernel stack */
#define CPU_USER_RSP   16    /* user rsp saved at syscall entry */
#define CPU_ID         24    /* this CPU's id: mycpu_id() in one load */
#define MAXCPU         64

#ifndef __ASSEMBLER__
#include <stdint.h>
#include "spinlock.h"

struct tss {
	uint32_t rsvd0;
	uint64_t rsp0, rsp1, rsp2;
	uint64_t rsvd1;
	uint64_t ist[7];
	uint64_t rsvd2;
	uint16_t rsvd3, iomap;
} __attribute__((packed));

struct context;
struct vp;
struct space;

struct cpu {
	struct cpu *self;            /* gs:0 */
	uint64_t kstack_top;         /* gs:8 */
	uint64_t user_rsp;           /* gs:16 */
	int id;                      /* 0..ncpu-1, boot CPU is 0 */
	uint32_t apic_id;
	struct vp *vp;               /* running VP, or 0 in the scheduler loop */
	struct context *sched_ctx;   /* this CPU's scheduler loop */
	struct space *cr3_space;     /* whose page tables are loaded (holds a ref) */

	struct spinlock rq_lock;     /* protects the run queue */
	struct vp *rq_head, *rq_tail;
	struct vp *handoff;          /* run it next (vp_yield_to took it off the queue) */
	int rq_len;
	volatile int idle;           /* halted in the idle loop */
	volatile int need_resched;
	volatile int tlb_pending;     /* another CPU asked us to flush (tlb.c) */

	uint64_t quantum_end;        /* ns; when the running VP must give up the CPU */

	struct kop *timers;          /* pending kops by wake time: a heap's root (timerq.c, kop_lock) */
	volatile uint64_t next_timer; /* timers' first wake_ns, or ~0: read without the lock */
	uint64_t warn_at;            /* send the running VP its preemption warning then */
	int warned;                  /* WARN_NONE, WARN_DUE, WARN_GIVEN or WARN_MOOT (sched.c) */
	uint64_t rand;               /* tie-breaking in sched.c */

	volatile int online;
	uint64_t ticks, idle_ns;
	struct tss tss;
	uint64_t gdt[8];
	uint8_t *ist_stacks;
};

/* cpu->warned; MOOT: it fell due with nobody waiting, so none was given (warn.c) */
enum { WARN_NONE, WARN_DUE, WARN_GIVEN, WARN_MOOT };

_Static_assert(__builtin_offsetof(struct cpu, self) == CPU_SELF, "cpu");
_Static_assert(__builtin_offsetof(struct cpu, kstack_top) == CPU_KSTACK, "cpu");
_Static_assert(__builtin_offsetof(struct cpu, user_rsp) == CPU_USER_RSP, "cpu");
_Static_assert(__builtin_offsetof(struct cpu, id) == CPU_ID, "cpu");
_Static_assert(CPU_ID == SPIN_CPU_ID_OFF, "spinlock.h reads the id there");

extern struct cpu cpus[MAXCPU];
extern int ncpu;

static inline struct cpu *mycpu(void)
{
	struct cpu *c;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(c));
	return c;
}
#endif

#endif
