/*
 * Interrupts of classic VPs. A classic VP (no upcall entry) has no way to
 * hear of an event: the kernel keeps what is sent to it queued, unread.
 * A user-level package still needs to interrupt a thread of such a VP
 * that only computes (a POSIX signal for it: kthread's threads, naive's
 * VPs). So a classic VP may name an interrupt entry in its VP page
 * (intr_entry): then any event queued for it (SYS_vp_signal) is an
 * interrupt, taken at the VP's next return to user mode with software
 * interrupts enabled: the queue is emptied, the context it was returning
 * to goes into the VP page's `save`, `disabled` is set, and the VP enters
 * intr_entry on its own stack, below the interrupted stack pointer, with
 * rdi = its VP page. Nothing new is held: the events are the VP's fixed
 * queue's, so a sender is bounded as for any signal (EVP_ADMIT), and the
 * queue drains at each delivery. docs/abi.md, "Interrupts of classic VPs".
 */
#include "kernel.h"

/* upcall_return for a VP with no upcall entry and events queued. */
void intr_return(struct vp *vp, struct trapframe *tf)
{
	struct vp_page *p = vp->vpp;
	uint64_t entry = READ_ONCE(p->intr_entry);
	if (!entry)
		return;                  /* not asked for: the events wait, as ever */
	if (READ_ONCE(p->disabled)) {
		p->pending = 1;          /* taken at a later return, once enabled */
		return;
	}
	if (entry < USER_BASE || entry >= USER_TOP) {
		char d[80];
		ksnprintf(d, sizeof d, "VP %d page: intr_entry = %#lx", vp->index, entry);
		space_kill(vp->space, "bad VP page", entry, tf->rip, d);
		vp_exit();
	}
	spin_lock(&vp->evlock);
	vp->evq_head = (vp->evq_head + (uint32_t)vp->evq_len) % EVQ_SIZE;
	vp->evq_len = 0;
	spin_unlock(&vp->evlock);
	ctx_from_tf(&p->save, tf);
	p->disabled = 1;
	p->pending = 0;
	tf->rip = entry;
	/* Below whatever the interrupted code has on its stack, aligned as at
	   a call. A bad rsp faults in user mode: the space's own doing. */
	tf->rsp = ((tf->rsp - 128) & ~15UL) - 8;
	tf->rdi = VPPAGE_BASE + (uint64_t)vp->index * PGSIZE;
	tf->rflags = RFLAGS_IF | 0x2;
	vp->pp->upcalls++;
}
