/* Upcall registration and event-ring helpers (the protocol: <anima/vp.h>). */
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/upcall.h>

struct vp_page *upcall_register(unsigned index, upcall_fn handler, uint64_t stack_size)
{
	struct vp_page *vpp = vp_page(index);
	char *stack = sys_map(0, stack_size, PROT_READ | PROT_WRITE);
	if (sys_failed((long)stack))
		return 0;
	vpp->disabled = 1;
	vpp->user_data[0] = (uint64_t)handler;
	vpp->upcall_stack = (uint64_t)stack + stack_size;
	vpp->resume_lo = (uint64_t)vp_resume_lo;
	vpp->resume_hi = (uint64_t)vp_resume_hi;
	__asm__ volatile("" ::: "memory");
	vpp->upcall_entry = (uint64_t)upcall_entry;   /* last: now upcalls may come */
	return vpp;
}

void vp_switch(struct vp_page *vpp, const struct uctx *ctx, const void *fpu)
{
	vpp->save = *ctx;
	if (fpu)
		memcpy(vpp->fpu, fpu, FPU_IMAGE);
	vp_resume(vpp);
}
