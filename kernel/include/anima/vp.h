/*
 * Virtual processors: the two pages the kernel shares with each VP, the
 * events it delivers by upcall, and the user context format. Included by
 * the kernel and by ulib; assembly uses the *_OFF constants, each checked
 * below with _Static_assert.
 *
 * Per VP i of a space:
 *   PSEUDO_BASE + i*4096  pseudo-register page: kernel writes, user reads
 *                         (mapped read-only; a user write faults).
 *   VPPAGE_BASE + i*4096  virtual-processor page: user reads and writes;
 *                         the kernel reads each field once, at the moment
 *                         of use, and validates it (never trusts it).
 *
 * Upcall protocol (docs/abi.md has the argument in full):
 *  - An event for a VP goes into the kernel's queue for that VP. Only when
 *    that VP next leaves the kernel for user mode does the kernel copy
 *    queued events into the VP page's ring. So the kernel touches a VP
 *    page only while its VP is in the kernel: user code on that VP never
 *    races with the kernel over it.
 *  - If `disabled` is 0 and rip is outside [resume_lo, resume_hi), the
 *    kernel saves the interrupted context in `save`, sets `disabled` = 1
 *    and enters `upcall_entry` on `upcall_stack` with rdi = VP page,
 *    rsi = pseudo-register page.
 *  - If rip is inside [resume_lo, resume_hi), the resume window, the VP is
 *    in the middle of restoring `save`; the kernel delivers the upcall as
 *    above but leaves `save` untouched (it still holds the full context
 *    being restored). Nothing half-restored is ever saved.
 *  - Otherwise (disabled), the kernel sets `pending` nonzero and returns:
 *    1 if every queued event is in the ring now, 2 if more still wait in
 *    the kernel (SYS_vp_poll fetches them).
 *    The resume routine clears `disabled` *inside* the window and then
 *    checks `pending`, so an event queued while disabled is always seen.
 */
#ifndef ANIMA_VP_H
#define ANIMA_VP_H

#define PSEUDO_BASE   0x00007ffe00000000UL
#define VPPAGE_BASE   0x00007ffe40000000UL
#define MAXVP         256                   /* VPs per space */
/* Kernel-owned user range: every VP slot's pseudo-register and VP page.
   SYS_map and SYS_unmap refuse any range that touches it (-EPERM). */
#define VP_RESERVED_LO  PSEUDO_BASE
#define VP_RESERVED_HI  (VPPAGE_BASE + MAXVP * 4096UL)
/* Each VP page lies this far above its VP's pseudo-register page, the
   user GS base: so user code reaches a field of its own VP page in one
   %gs-relative instruction (GS_VPPAGE + offset; ulib/include/upcall.h).
   One instruction cannot be split by an upcall that moves the thread to
   another VP; a load of the page's address and then a store through it
   can. Part of the ABI: the kernel keeps both bases where they are. */
#define GS_VPPAGE     (VPPAGE_BASE - PSEUDO_BASE)

/* Event types */
#define EV_BLOCKED    1   /* a thread blocked in the kernel: token, thread */
#define EV_UNBLOCKED  2   /* its operation finished: token, result, ctx */
#define EV_WARNING    3   /* preemption warning: arg = deadline (ns) */
#define EV_PREEMPTED  4   /* this VP was preempted: thread, ctx = where */
#define EV_TIMER      5   /* user timer fired: token, arg = its deadline */
#define EV_SIGNAL     6   /* from another VP: arg = payload, result = sender VP id */
#define EV_WAKE       7   /* a cross-space wake-up (SYS_seg_wake): token = the waiter's, as
			     the waker sent it (untrusted); result = sender space id. Token
			     0 (from the kernel only): wake-ups were coalesced or a segment
			     went away: every cross-space waiter of the space re-checks */
#define EV_PSIG       8   /* a signal from another process is pending for the space: arg = its
			     number; SYS_sigtake takes it (<anima/psig.h>). One per take, to
			     every VP with upcalls or an interrupt entry */
#define EV_FAULT      9   /* a fault of this VP's own code that the space catches as a signal
			     (kernel/fault.c): token = the signal, result = si_code (low 32 bits) |
			     the exception vector << 32 | its error code << 40, arg = si_addr,
			     ctx = the faulting context (also in `save`: the upcall or interrupt
			     it brings interrupts that context). Always in the ring, for a
			     classic VP too (its interrupt entry finds it there) */
#define EV_MAX        9

/* Why a thread blocked (EV_BLOCKED/EV_UNBLOCKED `arg`) */
#define BLK_SLEEP     1
#define BLK_IO        2
#define BLK_FUTEX     3
#define BLK_PAGE      4
#define BLK_DISK      5   /* a disk read or write (SYS_disk): the EV_UNBLOCKED context is the
                             call's own syscall instruction again (rip back 2, rax the number),
                             so resuming it asks again, and finds the block */
#define BLK_FPAGE     6   /* a fault on a file-mapped page (SYS_fmap) whose block is on its way
                             from the disk: the EV_UNBLOCKED context is the faulting instruction,
                             so resuming it touches the page again, and finds it */
#define BLK_PIPE      7   /* SYS_pipe_wait: a pipe shared with another space changed, or the
                             waiter's park word was woken; the result is 0 (look again). Also
                             SYS_lock_wait's: a lock of the file changed */

/* Offsets assembly uses (each checked below) */
#define VPP_DISABLED      0
#define VPP_PENDING       4
#define VPP_CURRENT       24
#define VPP_UPCALL_ENTRY  32
#define VPP_UPCALL_STACK  40
#define VPP_HANDLER       72
#define VPP_SAVE          128
#define VPP_FPU           272
#define VPP_INTR_ENTRY    3856
#define VPP_RING_HEAD     64
#define VPP_RING_TAIL     68
#define VPP_RING          784
#define EVENT_SIZE        192
#define EVENT_TYPE        0
#define EVENT_TOKEN       8
#define PP_SELF     0
#define PP_VPPAGE   8
#define PP_INDEX    16
#define UCTX_RAX 0
#define UCTX_RBX 8
#define UCTX_RCX 16
#define UCTX_RDX 24
#define UCTX_RSI 32
#define UCTX_RDI 40
#define UCTX_RBP 48
#define UCTX_RSP 56
#define UCTX_R8  64
#define UCTX_R9  72
#define UCTX_R10 80
#define UCTX_R11 88
#define UCTX_R12 96
#define UCTX_R13 104
#define UCTX_R14 112
#define UCTX_R15 120
#define UCTX_RIP 128
#define UCTX_RFLAGS 136

#ifndef __ASSEMBLER__
#include <stdint.h>

/* A user context: what the kernel saves on upcall and hands back with
   EV_UNBLOCKED and EV_PREEMPTED. FPU/SSE state is not in it: on upcall
   entry the FPU registers still hold the interrupted code's state, and
   the upcall entry stub saves them (fxsave) before running C. */
struct uctx {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rip, rflags;
};

struct event {
	uint32_t type;        /* EV_* */
	uint32_t vp;          /* index of the VP it was first meant for */
	uint64_t token;       /* names the blocked operation or timer */
	uint64_t result;      /* syscall result for EV_UNBLOCKED */
	uint64_t thread;      /* the VP page's current_thread when it blocked/was preempted */
	uint64_t arg;
	uint64_t seq;         /* per-VP sequence number, from 1 */
	struct uctx ctx;      /* EV_UNBLOCKED, EV_PREEMPTED, EV_FAULT */
};

#define RING_SIZE     16   /* events in the VP page ring */

struct vp_page {
	/* set by user, read (and checked) by the kernel */
	volatile uint32_t disabled;      /* software interrupts disabled */
	volatile uint32_t pending;       /* events queued while disabled: 1 in the ring, 2 more in
					    the kernel too (kernel sets, user clears) */
	uint64_t warn_ns;                /* preemption warning wanted this long before the end (0: none) */
	uint64_t want_preempted;         /* nonzero: deliver EV_PREEMPTED when resumed after preemption */
	uint64_t current_thread;         /* opaque to the kernel; reported in events */
	uint64_t upcall_entry;           /* user rip of the upcall handler (0: no upcalls: classic VP) */
	uint64_t upcall_stack;           /* user rsp for the handler (top of its stack) */
	uint64_t resume_lo, resume_hi;   /* the resume window */
	volatile uint32_t ring_head;     /* next event user will consume (user writes) */
	volatile uint32_t ring_tail;     /* one past the last event written (kernel writes) */
	uint64_t user_data[7];           /* the kernel ignores it; ulib's upcall stub calls
					    the C handler in user_data[0] (VPP_HANDLER) */
	struct uctx save;                /* the context interrupted by the last upcall */
	uint8_t fpu[512] __attribute__((aligned(16)));  /* for the upcall stub's fxsave */
	struct event ring[RING_SIZE];
	/* Classic VPs only (upcall_entry 0): where an interrupt sends the VP
	   (0: none). While nonzero, an event queued for the VP is an
	   interrupt (kernel/intr.c, docs/abi.md "Interrupts of classic VPs"). */
	uint64_t intr_entry;
};


/*
 * While a VP runs, the user GS base points at its pseudo-register page,
 * so user code finds "this VP" in one load: %gs:PP_VPPAGE is the VP page,
 * %gs:PP_INDEX the VP index. (The page is read-only to user code, so a
 * stray user write cannot misdirect it.)
 */
struct pseudo_page {
	uint64_t self;                   /* this page's user address */
	uint64_t vppage;                 /* this VP's VP page */
	uint32_t vp_index;               /* 0..nvp-1 within the space */
	uint32_t vp_id;                  /* unique across the system */
	uint32_t space_id;
	uint32_t cpu;                    /* physical CPU running this VP now */
	uint32_t nvp;                    /* VPs in the space */
	uint32_t ncpu;
	uint64_t tsc_hz;
	uint64_t ns_mult, tsc_base;      /* ns = (rdtsc() - tsc_base) * ns_mult >> 32 */
	uint64_t quantum_ns;             /* length of a full quantum */
	uint64_t quantum_start, quantum_end;  /* current quantum, ns since boot */
	uint64_t preempt_deadline;       /* nonzero while a warning is pending */
	uint64_t warn_cap_ns;            /* the largest warn_ns the kernel grants */
	/* statistics */
	uint64_t upcalls, preemptions, warnings, warnings_honored;
	uint64_t blocks, unblocks, signals, events;
	uint64_t run_ns, dispatches;
	uint64_t late_warnings;          /* warnings given late: their deadline was moved */
	uint64_t events_dropped;         /* EV_WARNING/EV_PREEMPTED dropped, EV_WAKEs coalesced: the kernel queue was full */
	/* state */
	uint64_t oncpu;                  /* 1 while a CPU runs this VP, 0 while it waits or idles:
					    peers move threads off a VP that is off its CPU */
	/* statistics and settings of the warning's probation (kernel/warn.c) */
	uint64_t warnings_ignored;       /* preempted at a warning's deadline: put on probation */
	uint64_t probation_quanta;       /* quanta begun on probation: no warning, cut short */
	uint64_t warn_probation;         /* how many quanta one ignored warning costs */
	uint64_t warnings_forgiven;      /* ignored but forgiven: honored enough before (warn.c) */
	/* CPU time (ulib's CLOCK_PROCESS_CPUTIME_ID): run_ns counts whole turns
	   on a CPU, and the slot keeps it when its VP exits (a VP made in the
	   slot goes on from there), so the slots' sum is the space's processor
	   time; run_start is when the current turn began (valid while oncpu) */
	uint64_t run_start;
	/* CLOCK_REALTIME - wall time at boot - boot clock, ns (SYS_clockset,
	   kernel/rtclock.c): kernel-wide, copied here at each quantum */
	int64_t rt_off;
	/* Odd while the kernel ends a turn (clears oncpu, then adds the turn
	   to run_ns: kernel/sched.c). A reader of another VP's CPU time reads
	   turn_seq, then run_ns, oncpu and run_start, and reads again unless
	   turn_seq was even and is unchanged: else it could miss the turn */
	uint64_t turn_seq;
};

#ifdef __cplusplus
#define ANIMA_SA static_assert
#else
#define ANIMA_SA _Static_assert
#endif
ANIMA_SA(__builtin_offsetof(struct vp_page, disabled) == VPP_DISABLED, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, pending) == VPP_PENDING, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, current_thread) == VPP_CURRENT, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, upcall_entry) == VPP_UPCALL_ENTRY, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, upcall_stack) == VPP_UPCALL_STACK, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, user_data) == VPP_HANDLER, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, save) == VPP_SAVE, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, fpu) == VPP_FPU, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, intr_entry) == VPP_INTR_ENTRY, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, ring_head) == VPP_RING_HEAD, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, ring_tail) == VPP_RING_TAIL, "vp_page");
ANIMA_SA(__builtin_offsetof(struct vp_page, ring) == VPP_RING, "vp_page");
ANIMA_SA(sizeof(struct event) == EVENT_SIZE, "event");
ANIMA_SA(__builtin_offsetof(struct event, type) == EVENT_TYPE, "event");
ANIMA_SA(__builtin_offsetof(struct event, token) == EVENT_TOKEN, "event");
ANIMA_SA(sizeof(struct vp_page) <= 4096, "vp_page fits a page");
ANIMA_SA(GS_VPPAGE + 4096 <= 0x7fffffffUL, "a %gs displacement reaches the whole VP page");
ANIMA_SA(sizeof(struct pseudo_page) <= 4096, "pseudo_page fits a page");
ANIMA_SA(sizeof(struct event) == 192, "event");
ANIMA_SA(__builtin_offsetof(struct pseudo_page, self) == PP_SELF, "pseudo_page");
ANIMA_SA(__builtin_offsetof(struct pseudo_page, vppage) == PP_VPPAGE, "pseudo_page");
ANIMA_SA(__builtin_offsetof(struct pseudo_page, vp_index) == PP_INDEX, "pseudo_page");
ANIMA_SA(__builtin_offsetof(struct uctx, rax) == UCTX_RAX, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, rbx) == UCTX_RBX, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, rcx) == UCTX_RCX, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, rdx) == UCTX_RDX, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, rsi) == UCTX_RSI, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, rdi) == UCTX_RDI, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, rbp) == UCTX_RBP, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, rsp) == UCTX_RSP, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, r8) == UCTX_R8, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, r9) == UCTX_R9, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, r10) == UCTX_R10, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, r11) == UCTX_R11, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, r12) == UCTX_R12, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, r13) == UCTX_R13, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, r14) == UCTX_R14, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, r15) == UCTX_R15, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, rip) == UCTX_RIP, "uctx");
ANIMA_SA(__builtin_offsetof(struct uctx, rflags) == UCTX_RFLAGS, "uctx");

#endif /* __ASSEMBLER__ */

#endif
