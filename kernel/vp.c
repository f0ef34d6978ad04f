/*
 * Virtual processors: a kernel stack, a saved user context, FPU state.
 * A VP is born RUNNABLE into a space, runs user code, and dies as a
 * ZOMBIE that the scheduler frees once it is off its own stack.
 */
#include "kernel.h"

extern char vp_first[];
/* VP ids are never reused: a handle names its VP by (space id, index,
   id), and a 32-bit counter came back to a live handle's id after 2^32
   creations (kthread makes a VP per thread: hours, not years), making
   the handle reach whichever VP then sat in its slot. 64 bits do not
   wrap. User code sees the low 32 bits (pseudo_page.vp_id), for
   information only. vpidbase=N (tests) starts the count at N. */
uint64_t next_vp_id = 1;

/* VP `index` of sp, if it is alive; call with sp->lock held. */
struct vp *vp_lookup(struct space *sp, uint64_t index)
{
	struct vp *vp = index < MAXVP ? sp->slot[index] : 0;
	return vp && vp->state != VP_ZOMBIE ? vp : 0;
}

/* One kernel-owned page at user address va of sp (mapped with `flags`):
   the one already there if the kernel put it there (a reused slot), else
   a new one. Only the kernel maps in the VP range (SYS_map and SYS_unmap
   refuse it) and it marks what it maps PTE_KERNEL: nothing else is ever
   adopted. The page stays mapped, and is freed with the tables. */
static void *kernel_page(struct space *sp, uint64_t va, uint64_t flags)
{
	uint64_t *pte = space_pte(sp, va);
	if (!pte)
		return 0;
	if (*pte & PTE_P)
		return (*pte & PTE_KERNEL) ? P2V(*pte & PTE_ADDR) : 0;
	void *pg = pages_alloc_user(1);
	if (!pg)
		return 0;
	*pte = V2P(pg) | PTE_P | PTE_U | PTE_NX | PTE_KERNEL | flags;
	sp->pages++;
	return pg;
}

/* VP `index`'s two shared pages, cleared; the kernel keeps direct-map
   pointers to write them without touching user mappings. sp->lock held. */
static int map_shared_pages(struct space *sp, struct vp *vp, int index)
{
	vp->pp = kernel_page(sp, PSEUDO_BASE + index * PGSIZE, 0);
	vp->vpp = vp->pp ? kernel_page(sp, VPPAGE_BASE + index * PGSIZE, PTE_W) : 0;
	if (!vp->vpp)
		return -ENOMEM;
	/* The slot's CPU time outlives its VPs (vp.h: run_ns), so a space's
	   processor time does not drop when one exits (kthread: a VP per thread). */
	uint64_t ran = vp->pp->run_ns;
	memset(vp->pp, 0, PGSIZE);
	memset(vp->vpp, 0, PGSIZE);
	vp->pp->run_ns = vp->run_ns = ran;
	return 0;
}

struct vp *vp_create(struct space *sp, uint64_t rip, uint64_t rsp)
{
	/* The struct (charged to sp) and the kernel stack leave the
	   kernel's reserve, as the ring and shared pages do (below). */
	struct vp *vp = kmalloc_user(sp, sizeof *vp);
	if (!vp)
		return 0;
	memset(vp, 0, __builtin_offsetof(struct vp, own_kop));   /* (the kops: kop_init) */
	vp->magic = VP_MAGIC;
	spin_lock(&sp->lock);
	int index = 0;
	while (index < MAXVP && sp->slot[index])
		index++;
	/* Its kernel stack counts in the space's quota, and so do a new slot's
	   event ring and shared pages (below); like user pages, they must
	   leave the kernel its reserve (mem_user_ok): 255 VPs of a space
	   whose maps had stopped at the reserve took 12 MiB of it. */
	int fresh = index < MAXVP && !sp->slot_evq[index];
	/* Charged before built: the stack is taken only once the check
	   passed (it was taken first, and given back when refused). */
	int err = index >= MAXVP ||
		  !mem_user_ok(sp, KSTACK_SIZE / PGSIZE + (fresh ? EVQ_PAGES + 2 : 0)) ||
		  !(vp->kstack = pages_alloc_user(KSTACK_SIZE / PGSIZE)) ||
		  map_shared_pages(sp, vp, index) < 0;
	/* The event ring stays with the slot, as the shared pages do: a VP
	   made where one exited reuses it, without the allocation and
	   zeroing (kthread makes a VP per thread). Stale events in it are
	   never read: a slot is read only after it is written. It is freed
	   with the space (space_put). */
	if (!err && !sp->slot_evq[index]) {
		err = !(sp->slot_evq[index] = pages_alloc_user(EVQ_PAGES));
		if (!err)
			sp->kpages += EVQ_PAGES;
	}
	if (!err) {
		sp->kpages += KSTACK_SIZE / PGSIZE;
		vp->evq = sp->slot_evq[index];
		sp->slot[index] = vp;
		if (index >= sp->nvp)
			sp->nvp = index + 1;
	}
	spin_unlock(&sp->lock);
	if (err) {
		if (vp->kstack)
			pages_free(vp->kstack, KSTACK_SIZE / PGSIZE);
		kfree_user(sp, vp, sizeof *vp);
		return 0;
	}
	vp->index = index;
	vp->gs_base = PSEUDO_BASE + (uint64_t)index * PGSIZE;
	spin_init(&vp->evlock, "vp events");
	vp->id = __atomic_fetch_add(&next_vp_id, 1, __ATOMIC_RELAXED);
	vp->space = sp;
	vp->state = VP_NEW;
	vp->honor_streak = WARN_FORGIVE;   /* in good standing: its first miss is forgiven (warn.c) */

	/* The trapframe sits at the top of the kernel stack; below it, a
	   context whose return address is vp_first, which "returns" to user
	   mode through trapret. */
	struct trapframe *tf = (void *)(vp->kstack + KSTACK_SIZE - sizeof *tf);
	memset(tf, 0, sizeof *tf);
	tf->cs = UCODE_SEL;
	tf->ss = UDATA_SEL;
	tf->rflags = RFLAGS_IF | 0x2;
	tf->rip = rip;
	tf->rsp = rsp;
	tf->vector = T_SYSCALL;
	vp->tf = tf;
	struct context *ctx = (void *)((uint8_t *)tf - sizeof *ctx);
	memset(ctx, 0, sizeof *ctx);
	ctx->rip = (uint64_t)vp_first;
	vp->ctx = ctx;

	/* Clean FPU/SSE state: x87 control word and MXCSR at reset values. */
	*(uint16_t *)(vp->fpu + 0) = 0x37f;
	*(uint32_t *)(vp->fpu + 24) = 0x1f80;

	struct pseudo_page *pp = vp->pp;
	pp->self = vp->gs_base;
	pp->vppage = VPPAGE_BASE + (uint64_t)index * PGSIZE;
	pp->vp_index = index;
	pp->vp_id = (uint32_t)vp->id;
	pp->space_id = sp->id;
	pp->tsc_hz = tsc_hz;
	pp->ns_mult = tsc_ns_mult;
	pp->tsc_base = tsc_boot;
	pp->quantum_ns = quantum_ns;
	pp->warn_cap_ns = warn_cap_ns();
	pp->warn_probation = warn_probation;
	pp->ncpu = ncpu;

	space_get(sp);
	spin_lock(&sp->lock);
	sp->live_vps++;
	for (struct vp *v = sp->vps; v; v = v->space_next)
		v->pp->nvp = sp->nvp;
	pp->nvp = sp->nvp;
	vp->space_next = sp->vps;
	sp->vps = vp;
	spin_unlock(&sp->lock);
	return vp;
}

/* First code a new VP runs (from vp_first, before trapret). */
void vp_started(void)
{
	user_return_checks(myvp()->tf);
}

void vp_free(struct vp *vp)
{
	struct space *sp = vp->space;
	spin_lock(&sp->lock);
	for (struct vp **pp = &sp->vps; *pp; pp = &(*pp)->space_next)
		if (*pp == vp) {
			*pp = vp->space_next;
			break;
		}
	if (sp->slot[vp->index] == vp)
		sp->slot[vp->index] = 0;
	sp->kpages -= KSTACK_SIZE / PGSIZE;
	spin_unlock(&sp->lock);
	shake();                         /* out of its space's lists, not yet freed */
	view_free(vp);               /* (no CPU has its view's tables loaded: sched.c) */
	event_drain(vp);             /* the ring stays with the slot */
	pages_free(vp->kstack, KSTACK_SIZE / PGSIZE);
	vp->magic = 0;
	kfree_user(sp, vp, sizeof *vp);
	space_put(sp);
}

/* SYS_vp_exit: the calling VP ends; its slot can be reused. The last
   started VP to leave ends the space with status 0 (VPs still parked
   are freed: space_exit runs them straight to their exit). */
long sys_vp_exit(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	struct vp *vp = myvp();
	struct space *sp = vp->space;
	spin_lock(&sp->lock);
	int last = sp->live_vps - sp->nparked == 1;
	spin_unlock(&sp->lock);
	shake();                         /* another VP may exit meanwhile */
	if (last) {
		space_exit(sp, 0);
		return 0;                /* the return path exits */
	}
	vp_exit();
}

/* The current VP ends. The last VP out finishes its space. Its kops (a
   user timer, thread-mode waits) go now, not with the space: the VP is
   freed as soon as it is off its CPU, while its space may live on, and a
   timer firing later would post to it. (Capabilities naming it need no
   cleanup: they name its VP id, never reused.) If only parked VPs are
   left -- two started VPs ran SYS_vp_exit at once, each seeing the
   other -- the space ends here, as for the last started VP. */
void vp_exit(void)
{
	struct vp *vp = myvp();
	struct space *sp = vp->space;
	kop_vp_cleanup(vp);
	spin_lock(&sp->lock);
	vp->state = VP_ZOMBIE;
	int last = --sp->live_vps == 0;
	int only_parked = !last && sp->live_vps == sp->nparked;
	spin_unlock(&sp->lock);
	shake();                         /* a zombie, still running */
	if (only_parked)
		space_exit(sp, 0);       /* no-op if it is already ending */
	if (last)
		space_finish(sp);
	sched();
	panic("vp_exit: zombie ran again");
}
