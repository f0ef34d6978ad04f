/*
 * Traps: the IDT, and trap(), where every interrupt and exception lands.
 * A fault in user mode ends only the faulting space; a fault in kernel
 * mode is a kernel bug and panics — except a page fault inside the user
 * copy routines, which becomes -EFAULT (uaccess.c).
 */
#include "kernel.h"
#include "disk.h"

struct gate {
	uint16_t off0, sel;
	uint8_t ist, type;
	uint16_t off1;
	uint32_t off2, rsvd;
} __attribute__((packed));

static struct gate idt[256];
extern uint64_t vectors[256];

static const char *const names[32] = {
	[0] = "divide error", [1] = "debug", [2] = "NMI", [3] = "breakpoint",
	[4] = "overflow", [5] = "bound range", [6] = "invalid opcode",
	[7] = "device not available", [8] = "double fault", [10] = "invalid TSS",
	[11] = "segment not present", [12] = "stack fault", [13] = "general protection",
	[14] = "page fault", [16] = "x87 floating point", [17] = "alignment check",
	[18] = "machine check", [19] = "SIMD floating point", [20] = "virtualization",
	[21] = "control protection",
};

const char *trap_name(uint64_t v)
{
	return v < 32 && names[v] ? names[v] : "unknown exception";
}

void idt_init(void)
{
	for (int i = 0; i < 256; i++) {
		uint64_t a = vectors[i];
		int ist = i == T_DOUBLE ? 1 : i == T_NMI ? 2 : i == 18 ? 3 : 0;
		idt[i] = (struct gate){ (uint16_t)a, KCODE_SEL, (uint8_t)ist, 0x8e,
					(uint16_t)(a >> 16), (uint32_t)(a >> 32), 0 };
	}
}

void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) idtr = { sizeof idt - 1, (uint64_t)idt };
	__asm__ volatile("lidt %0" : : "m"(idtr));
}

/* Is va a PROT_NONE page of sp? (Not present to the CPU, but mapped:
   its fault is one of protection, as Linux's SEGV_ACCERR.) */
static int prot_none(struct space *sp, uint64_t va)
{
	spin_lock(&sp->lock);
	uint64_t *pte = va < USER_TOP ? vm_walk(sp->pml4, va, 0) : 0;
	int r = pte && (*pte & PTE_NONE);
	spin_unlock(&sp->lock);
	return r;
}

/* A user-mode exception: a signal the space catches (fault.c), or
   described in one line and the end of the space. */
static void user_fault(struct trapframe *tf)
{
	/* The kill's words first: a caught fault keeps them (fault.c), for
	   the runtime that cannot deliver it (SYS_sigdie's SIGDIE_FAULT). */
	struct fault_kill k = { .cause = trap_name(tf->vector), .addr = tf->rip, .rip = tf->rip };
	char *detail = k.detail;
	int prot = tf->vector == T_PGFLT && (tf->error & PF_P || prot_none(myvp()->space, rcr2()));
	if (tf->vector == T_PGFLT) {
		uint64_t addr = k.addr = rcr2();
		size_t n = ksnprintf(detail, sizeof k.detail, "%s, %s",
				     tf->error & PF_I ? "exec" : tf->error & PF_W ? "write" : "read",
				     prot ? "protection" : "not present");
		if (in_seg_window(addr, 1) && n + 2 < sizeof k.detail) {   /* say which segment */
			memcpy(detail + n, ", ", 2);
			seg_fault_detail(myvp()->space, addr, detail + n + 2, sizeof k.detail - n - 2);
		}
	} else if (tf->error)
		ksnprintf(detail, sizeof k.detail, "error code %#lx", tf->error);
	if (fault_of_trap(tf, prot, &k))
		return;                  /* a signal the space catches (fault.c) */
	space_kill(myvp()->space, k.cause, k.addr, k.rip, detail);
}

/* A user rip at or past USER_TOP: the instruction before it ended at the
   top of user space (a `syscall` in the last two bytes of the last page,
   or any instruction there when an interrupt came before the next fetch),
   and the next fetch would be non-canonical. Neither sysretq nor iretq
   may return there: on Intel both raise #GP in ring 0, with the user's GS
   already loaded by swapgs (QEMU's TCG returns and faults in user mode).
   So the space dies here, as the fetch would have killed it, naming the
   syscall instruction itself (as Intel names a jump to a non-canonical
   address). */
static void noncanonical_return(struct vp *vp, const struct trapframe *tf)
{
	uint64_t rip = tf->vector == T_SYSCALL ? tf->rip - 2 : tf->rip;   /* syscall: 0f 05 */
	space_kill(vp->space, "general protection", tf->rip, rip, "return to a non-canonical rip");
}

/* Work due before any return to user mode: end a dying space's VP,
   take preemption, deliver upcalls. */
void user_return_checks(struct trapframe *tf)
{
	struct vp *vp = myvp();
	struct cpu *c = mycpu();
	/* The rare cases, tested in one pass. */
	if (unlikely(vp->space->state != SP_ALIVE || c->need_resched || vp->bad_fs ||
		     c->warned == WARN_DUE || tf->rip >= USER_TOP)) {
		if (vp->space->state != SP_ALIVE)
			vp_exit();
		if (c->need_resched) {
			sched_quantum_end();     /* (we may come back on another CPU) */
			while (unlikely(vp->space->stopped) && vp->space->state == SP_ALIVE)
				pstop_park();    /* stopped while it waited for a CPU (pstop.c) */
		}
		if (unlikely(vp->bad_fs) && vp->space->state == SP_ALIVE)
			space_kill(vp->space, "non-canonical FS base", vp->bad_fs, tf->rip, "wrfsbase");
		if (unlikely(tf->rip >= USER_TOP) && vp->space->state == SP_ALIVE)
			noncanonical_return(vp, tf);
		if (vp->space->state != SP_ALIVE)
			vp_exit();
		if (mycpu()->warned == WARN_DUE)
			warn_deliver(vp);
	}
	if (upcall_due(vp))
		upcall_return(vp, tf);
}

void trap(struct trapframe *tf)
{
	int from_user = (tf->cs & 3) == 3;
	smap_check("trap");
	switch (tf->vector) {
	case T_NMI:
	case T_HALT:
		if (panicking)
			panic_stopped(tf);   /* another CPU panicked: say where, stop here */
		for (;;)
			__asm__ volatile("cli; hlt");
	case T_TIMER:
		lapic_eoi();
		lapic_timer_fired();
		timer_interrupt();
		break;
	case T_RESCHED:          /* the sender set need_resched or a space's state */
		lapic_eoi();
		break;
	case T_TLB:
		lapic_eoi();
		tlb_check();
		break;
	case T_DISK:
		lapic_eoi();
		blk_intr();
		break;
	case T_SPURIOUS:
		break;
	default:
		if (tf->vector >= 0x20 && tf->vector < 0x30)
			break;           /* spurious IRQ from the masked 8259 PIC */
		if (tf->vector >= 32)
			panic_trap(tf, "unexpected interrupt %lu", tf->vector);
		if (!from_user) {
			if (tf->vector == T_PGFLT && uaccess_fixup(tf))
				return;
			panic_trap(tf, "%s in kernel mode", trap_name(tf->vector));
		}
		if (tf->vector == T_PGFLT && view_user_fault(tf, rcr2(), tf->error))
			break;
		if (tf->vector == T_PGFLT && cow_fault(tf, rcr2(), tf->error))
			break;
		/* (lazy_fault first: a demand-zero page is the common fault, and
		   fmap_fault's look for a file region under sp->lock cost each
		   one about 190 instructions (vmops fault: 1,782 -> 1,595);
		   a file's region is not lazy_fault's, nor a demand-zero one fmap_fault's) */
		if (tf->vector == T_PGFLT && lazy_fault(tf, rcr2(), tf->error))
			break;
		if (tf->vector == T_PGFLT && fmap_fault(tf, rcr2(), tf->error))
			break;
		user_fault(tf);
	}
	if (from_user)
		user_return_checks(tf);
}
