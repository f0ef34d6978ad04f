/*
 * Address spaces and virtual processors: the only things the kernel
 * schedules are VPs; a space owns page tables and one or more VPs.
 */
#ifndef PROC_H
#define PROC_H
#include <stdint.h>
#include <anima/layout.h>
#include "spinlock.h"
#include "trap.h"

#define KSTACK_SIZE  (16 * 1024)
#define MAXSPACE     256

enum vpstate { VP_NEW, VP_RUNNABLE, VP_RUNNING, VP_BLOCKED, VP_ZOMBIE };

/* Callee-saved registers, as swtch.S pushes them. */
struct context {
	uint64_t r15, r14, r13, r12, rbx, rbp, rip;
};

struct vp {
	int id;                      /* unique across the system */
	int index;                   /* 0..nvp-1 within its space */
	struct space *space;
	volatile int state;          /* enum vpstate; changed with atomics */
	volatile int on_cpu;         /* still running on some CPU's stack */
	struct cpu *cpu;             /* CPU whose run queue it belongs to */
	struct vp *rq_next;          /* run-queue link */
	uint8_t *kstack;
	struct context *ctx;         /* saved by swtch when not running */
	struct trapframe *tf;        /* user registers, top of kstack */
	uint64_t wake_ns;            /* sys_sleep deadline */
	struct vp *sleep_next;
	struct vp *space_next;       /* link in space->vps */
	uint64_t run_ns, switches;   /* accounting */
	uint8_t fpu[512] __attribute__((aligned(16)));  /* fxsave area */
};

enum spstate { SP_ALIVE, SP_DYING, SP_DEAD };

struct space {
	int id;
	char name[MAX_PROGNAME];
	struct spinlock lock;        /* protects the fields below and the page tables */
	int state;                   /* enum spstate */
	uint64_t *pml4;              /* kernel virtual address of the top table */
	uint64_t cr3;
	volatile int refs;           /* VPs + CPUs with cr3 loaded + parent's record */
	struct vp *vps;
	int nvp, live_vps;
	struct space *parent;
	int boot_slot;               /* index on the kernel command line, or -1 */
	int exit_status;
	int waited;                  /* parent collected the status */
	uint64_t map_next;           /* SYS_map placement for addr == 0 */
	uint64_t pages;              /* user pages mapped */
	struct vp *waiter;           /* parent VP blocked in SYS_wait on us */
	int tables_freed;            /* refs reached zero (table_lock) */
	const char *kill_cause;      /* set when the kernel killed the space */
	uint64_t kill_addr, kill_rip;
};

#endif
