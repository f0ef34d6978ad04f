/*
 * Upcall plumbing for thread packages (ulib/rt/upcall.S, ulib/rt/vpage.c).
 * The kernel/user ABI itself is <anima/vp.h>.
 */
#ifndef ULIB_UPCALL_H
#define ULIB_UPCALL_H

#include <stdint.h>
#include <anima/vp.h>
#include <animart/sys.h>

typedef void (*upcall_fn)(struct vp_page *vpp, struct pseudo_page *pp);

void upcall_entry(void);                            /* the kernel's target */
__attribute__((noreturn)) void vp_resume(struct vp_page *vpp);
extern char vp_resume_lo[], vp_resume_hi[];

/* The VP running this code, in one load (see <anima/vp.h>). */
static inline struct vp_page *vp_self(void)
{
	struct vp_page *p;
	__asm__ volatile("mov %%gs:%c1, %0" : "=r"(p) : "i"(PP_VPPAGE));
	return p;
}
static inline struct pseudo_page *vp_pseudo(void)
{
	struct pseudo_page *p;
	__asm__ volatile("mov %%gs:%c1, %0" : "=r"(p) : "i"(PP_SELF));
	return p;
}
static inline unsigned vp_index(void)
{
	unsigned i;
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(i) : "i"(PP_INDEX));
	return i;
}

static inline struct vp_page *vp_page(unsigned index)
{
	return (struct vp_page *)(VPPAGE_BASE + (uint64_t)index * 4096);
}
static inline struct pseudo_page *pseudo_page(unsigned index)
{
	return (struct pseudo_page *)(PSEUDO_BASE + (uint64_t)index * 4096);
}

/* user_data[1] of a VP page belongs to the package that owns the VP: its
   per-VP state, one load away on fast paths (the kernel ignores it). */
#define VPP_PKG 1
static inline void *vp_pkg(struct vp_page *vpp)
{
	return (void *)vpp->user_data[VPP_PKG];
}

/* Register handler for upcalls on VP `index`, with an upcall stack of
   `stack_size` bytes (allocated here). Software interrupts stay disabled
   until the caller clears vpp->disabled (or calls vp_enable). */
struct vp_page *upcall_register(unsigned index, upcall_fn handler, uint64_t stack_size);

/* Enable software interrupts; if events are pending, take them now.
   Inline: malloc and the packages use it on their fast paths. */
static inline void vp_enable(struct vp_page *vpp)
{
	__asm__ volatile("" ::: "memory");   /* the section's stores stay before */
	vpp->disabled = 0;
	__asm__ volatile("" ::: "memory");
	/* Anything that arrived while disabled is in the ring or still in the
	   kernel's queue; entering the kernel lets it deliver the upcall. */
	if (vpp->pending)
		syscall0(SYS_vp_poll);
}

/* Disable software interrupts on vpp. Only where vpp cannot be left
   behind: the caller is disabled already, is vpp's upcall handler or
   scheduler, or vpp is the space's only VP. A thread that runs enabled
   uses vp_disable_self. */
static inline void vp_disable(struct vp_page *vpp)
{
	vpp->disabled = 1;
	__asm__ volatile("" ::: "memory");
}

/*
 * Disable software interrupts on the VP the calling thread runs on, and
 * return its page. While they are on, an upcall may come between any two
 * instructions and move the thread to another VP (preempted, warned, its
 * time slice over). So "vpp = vp_self(); vpp->disabled = 1" can disable
 * the VP the thread has just left (whose own thread or scheduler then
 * runs with upcalls held back) and run on, enabled, on its new VP, in the
 * middle of a switch. Here the store goes through %gs in one instruction
 * (GS_VPPAGE): the VP that runs it is the one disabled, and from then on
 * the thread stays on it.
 */
static inline struct vp_page *vp_disable_self(void)
{
	__asm__ volatile("movl $1, %%gs:%c0" : : "i"(GS_VPPAGE + VPP_DISABLED) : "memory");
	return vp_self();
}

/* Enable software interrupts on the VP the calling thread runs on (one
   %gs-relative store), then enter the kernel if events came while it was
   disabled. The test is %gs-relative too: once enabled, an upcall may
   move the thread, and the flag that matters is the one of the VP it is
   on. For a thread's own fast paths (rt_yield), right after a switch:
   always inline (GCC would make it a call there, for the syscall). */
static inline __attribute__((always_inline)) void vp_enable_self(void)
{
	int pend;
	__asm__ volatile("movl $0, %%gs:%c0" : : "i"(GS_VPPAGE + VPP_DISABLED) : "memory");
	__asm__ volatile("cmpl $0, %%gs:%c1" : "=@ccne"(pend) : "i"(GS_VPPAGE + VPP_PENDING) : "memory");
	if (pend)
		syscall0(SYS_vp_poll);
}

/* vp_disable_save on the calling thread's VP: *was as vp_disable_save
   returns it. A move between the load and the store can happen only
   while enabled, and a thread always resumes enabled: *was = 0 is still
   true on the new VP. */
static inline struct vp_page *vp_disable_save_self(int *was)
{
	uint32_t w;
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(w) : "i"(GS_VPPAGE + VPP_DISABLED));
	__asm__ volatile("movl $1, %%gs:%c0" : : "i"(GS_VPPAGE + VPP_DISABLED) : "memory");
	*was = (int)w;
	return vp_self();
}

/* For code that may run enabled or not (a thread, a handler, a package's
   scheduler): disable, returning whether software interrupts were off
   already; vp_restore undoes exactly that. */
static inline int vp_disable_save(struct vp_page *vpp)
{
	int was = vpp->disabled;
	vp_disable(vpp);
	return was;
}

static inline void vp_restore(struct vp_page *vpp, int was)
{
	if (!was)
		vp_enable(vpp);
}

/* The next event in the ring (the caller then advances ring_head), or 0
   if it is empty. */
static inline struct event *vp_next_event(struct vp_page *vpp)
{
	uint32_t head = vpp->ring_head;
	if (head == vpp->ring_tail)
		return 0;
	return &vpp->ring[head % RING_SIZE];
}

/* The bytes of an FXSAVE image the processor defines in 64-bit mode:
   control and status, the x87 registers, XMM0-15 (bytes 0-415). Bytes
   416-463 are reserved and 464-511 left to software; neither holds
   register state, so a thread's saved copy keeps only these (vp_switch
   copies them back over an image the processor itself wrote). */
#define FPU_IMAGE 416
_Static_assert(FPU_IMAGE <= sizeof(((struct vp_page *)0)->fpu), "FPU_IMAGE");

/* Resume ctx (with FPU image fpu, FPU_IMAGE bytes, or the VP page's own
   if 0) from inside an upcall handler: enables software interrupts. */
__attribute__((noreturn)) void vp_switch(struct vp_page *vpp, const struct uctx *ctx, const void *fpu);

#endif
