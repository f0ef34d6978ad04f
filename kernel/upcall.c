/*
 * Events and upcalls (software interrupts), the kernel half of the
 * protocol in <anima/vp.h>.
 *
 * Events for a VP wait in a kernel queue; the VP page ring is filled only
 * when that VP leaves the kernel for user mode (upcall_return), so the
 * kernel never writes a VP page while user code on that VP runs. Every
 * field read from the VP page is read once and checked before use: user
 * code can write any byte of it at any time.
 */
#include "kernel.h"

void ctx_from_tf(struct uctx *c, const struct trapframe *tf)
{
	*c = (struct uctx){ tf->rax, tf->rbx, tf->rcx, tf->rdx, tf->rsi, tf->rdi, tf->rbp, tf->rsp,
			    tf->r8, tf->r9, tf->r10, tf->r11, tf->r12, tf->r13, tf->r14, tf->r15,
			    tf->rip, tf->rflags };
}

static int in_window(struct vp *vp, const struct trapframe *tf)
{
	uint64_t lo = READ_ONCE(vp->vpp->resume_lo), hi = READ_ONCE(vp->vpp->resume_hi);
	return tf->rip >= lo && tf->rip < hi;
}

/* Would an event now reach the VP by upcall (rather than being queued)? */
int upcalls_on(struct vp *vp, const struct trapframe *tf)
{
	return READ_ONCE(vp->vpp->upcall_entry) && !READ_ONCE(vp->vpp->disabled) && !in_window(vp, tf);
}

/*
 * Queue ev for vp. Returns 0, or -EAGAIN when the VP already has MAXEVQ
 * events waiting (only signals can be refused: `must` events come from
 * operations the VP started, and each starts at most two).
 */
int event_post(struct vp *vp, const struct event *ev, int must)
{
	struct kevent *k = kmalloc(sizeof *k);
	if (!k)
		panic("event_post: out of memory");
	k->ev = *ev;
	k->next = 0;
	spin_lock(&vp->evlock);
	if (!must && vp->evq_len >= MAXEVQ) {
		spin_unlock(&vp->evlock);
		kfree(k);
		return -EAGAIN;
	}
	k->ev.vp = vp->index;
	k->ev.seq = ++vp->ev_seq;
	if (vp->evq_tail)
		vp->evq_tail->next = k;
	else
		vp->evq_head = k;
	vp->evq_tail = k;
	vp->evq_len++;
	int idle = vp->idle_wait;
	spin_unlock(&vp->evlock);
	__atomic_fetch_add(&vp->pp->events, 1, __ATOMIC_RELAXED);
	if (idle)
		vp_wake(vp);
	else if (vp->state == VP_RUNNING && vp->cpu != mycpu())
		lapic_ipi(vp->cpu->apic_id, T_RESCHED);    /* deliver it soon */
	return 0;
}

/* Free whatever is still queued (the VP is being freed). */
void event_drain(struct vp *vp)
{
	while (vp->evq_head) {
		struct kevent *k = vp->evq_head;
		vp->evq_head = k->next;
		kfree(k);
	}
	vp->evq_tail = 0;
	vp->evq_len = 0;
}

static void bad_page(struct vp *vp, const char *what, uint64_t val, const struct trapframe *tf)
{
	char d[80];
	ksnprintf(d, sizeof d, "VP %d page: %s = %#lx", vp->index, what, val);
	space_kill(vp->space, "bad VP page", val, tf->rip, d);
	vp_exit();
}

/* Last step before returning to user mode: deliver what is queued. */
void upcall_return(struct vp *vp, struct trapframe *tf)
{
	struct vp_page *p = vp->vpp;
	if (vp->preempted) {
		vp->preempted = 0;
		struct event ev = { .type = EV_PREEMPTED, .thread = READ_ONCE(p->current_thread) };
		ctx_from_tf(&ev.ctx, tf);
		event_post(vp, &ev, 1);
	}
	uint64_t entry = READ_ONCE(p->upcall_entry);
	if (!entry)
		return;                  /* classic VP: nothing to deliver to */
	/* Something to deliver: events in the kernel queue, or events still
	   in the ring that were copied there while the VP was disabled, now
	   that it has really enabled (vp_enable enters the kernel for them).
	   Not inside the resume window: code there is still on its way out
	   of a handler that is consuming the ring. */
	uint32_t head = READ_ONCE(p->ring_head);
	int window = in_window(vp, tf);
	int undelivered = head != vp->ring_tail && !READ_ONCE(p->disabled) && !window;
	if (!vp->evq_head && !undelivered)
		return;
	if ((uint32_t)(vp->ring_tail - head) > RING_SIZE)
		bad_page(vp, "ring_head", head, tf);
	uint32_t copied = vp->ring_tail;
	spin_lock(&vp->evlock);
	while (vp->evq_head && (uint32_t)(vp->ring_tail - head) < RING_SIZE) {
		struct kevent *k = vp->evq_head;
		vp->evq_head = k->next;
		if (!vp->evq_head)
			vp->evq_tail = 0;
		vp->evq_len--;
		p->ring[vp->ring_tail % RING_SIZE] = k->ev;
		vp->ring_tail++;
		kfree(k);
	}
	int more = vp->evq_head != 0;
	spin_unlock(&vp->evlock);
	p->ring_tail = vp->ring_tail;

	if (READ_ONCE(p->disabled) && !window) {
		if (vp->ring_tail != copied || more)
			p->pending = 1;  /* the resume routine will see it */
		return;
	}
	uint64_t stack = READ_ONCE(p->upcall_stack);
	if (entry < USER_BASE || entry >= USER_TOP)
		bad_page(vp, "upcall_entry", entry, tf);
	if (stack <= USER_BASE || stack > USER_TOP)
		bad_page(vp, "upcall_stack", stack, tf);
	/* In the resume window, `save` still holds the full context being
	   restored: keep it, and drop the half-restored registers. */
	if (!window)
		ctx_from_tf(&p->save, tf);
	p->disabled = 1;
	p->pending = more;
	tf->rip = entry;
	tf->rsp = (stack & ~15UL) - 8;      /* as if called: rsp+8 is 16-aligned */
	tf->rdi = VPPAGE_BASE + (uint64_t)vp->index * PGSIZE;
	tf->rsi = PSEUDO_BASE + (uint64_t)vp->index * PGSIZE;
	tf->rflags = RFLAGS_IF | 0x2;
	vp->pp->upcalls++;
}

/* SYS_vp_idle: give up the processor until an event arrives. */
long sys_vp_idle(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	struct vp *vp = myvp();
	spin_lock(&vp->evlock);
	if (vp->evq_head || vp->ring_tail != READ_ONCE(vp->vpp->ring_head) ||
	    vp->space->state != SP_ALIVE) {
		spin_unlock(&vp->evlock);
		return 0;
	}
	vp->idle_wait = 1;
	vp_block(&vp->evlock);
	spin_lock(&vp->evlock);
	vp->idle_wait = 0;
	spin_unlock(&vp->evlock);
	return 0;
}
