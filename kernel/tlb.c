/*
 * TLB shootdown. After a space's page-table entries are cleared, every
 * other CPU that has its tables loaded must flush before the frames can
 * be reused. Each target gets a pending flag and an IPI; the sender waits
 * for the flags to clear, handling requests aimed at itself meanwhile, so
 * two CPUs shooting at each other (interrupts off) cannot deadlock.
 */
#include "kernel.h"

void tlb_check(void)
{
	struct cpu *c = mycpu();
	if (__atomic_load_n(&c->tlb_pending, __ATOMIC_ACQUIRE)) {
		lcr3(rcr3());
		vstat(VS_CR3_FLUSH, 1);
		__atomic_store_n(&c->tlb_pending, 0, __ATOMIC_RELEASE);
	}
}

/* Flush sp's translations on every CPU that may cache them. The caller
   has cleared PTEs and must hold no spin lock: the kernel runs with
   interrupts off, so a target spinning on a lock we hold would never take
   the IPI and we would wait forever. */
void tlb_shootdown(struct space *sp)
{
	struct cpu *me = mycpu();
	int sent[MAXCPU] = { 0 };
	/* Our PTE stores must be visible before we read who has sp loaded:
	   x86 lets a load pass an earlier store, and switch_space writes
	   cr3_space before its (serializing) CR3 load. With the fence, either
	   we see that CPU in cr3_space, or its page walk sees the cleared PTEs. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	vstat(VS_SHOOTDOWNS, 1);
	if (me->cr3_space == sp) {
		lcr3(rcr3());
		vstat(VS_CR3_FLUSH, 1);
	}
	for (int i = 0; i < ncpu; i++) {
		struct cpu *c = &cpus[i];
		if (c != me && __atomic_load_n(&c->cr3_space, __ATOMIC_RELAXED) == sp) {
			__atomic_store_n(&c->tlb_pending, 1, __ATOMIC_RELEASE);
			lapic_ipi(c->apic_id, T_TLB);
			vstat(VS_IPIS, 1);
			sent[i] = 1;
		}
	}
	for (int i = 0; i < ncpu; i++)
		while (sent[i] && __atomic_load_n(&cpus[i].tlb_pending, __ATOMIC_ACQUIRE)) {
			tlb_check();
			pause();
		}
}

/* Clear the PTEs of [*va, end) until the batch is full, noting the frames
   the space owns in b (kernel memory no user can reach: never the frames
   themselves, which a stale TLB entry on another CPU may still write).
   Kernel-owned (PTE_KERNEL) entries are left alone. *va advances; returns
   1 when the range is done. sp->lock held. */
int vm_unmap_collect(uint64_t *pml4, uint64_t *va, uint64_t end, struct frame_batch *b)
{
	uint64_t *pte;
	while ((pte = vm_next(pml4, va, end))) {
		if (*pte & PTE_KERNEL) {
			*va += PGSIZE;
			continue;
		}
		if (!(*pte & PTE_SHARED)) {
			if (b->n == NELEM(b->pa))
				return 0;
			b->pa[b->n++] = *pte & PTE_ADDR;
			if (*pte & (PTE_D | PTE_FDIRTY))
				fshare_dirty(*pte & PTE_ADDR);   /* (a shared file page's stores: fshare.c) */
		}
		*pte = 0;
		b->unmapped++;
		*va += PGSIZE;
	}
	return 1;
}

/* After the shootdown: the frames and tables b collected go. */
static void batch_free(struct frame_batch *b)
{
	for (int i = 0; i < b->n; i++)
		frame_put(b->pa[i]);     /* (freed by its last holder: cow.c) */
	for (int i = 0; i < b->nt; i++)
		page_free(P2V(b->tab[i]));
}

/* Unmap [va, va+len) of sp and free its frames: collect a batch under the
   lock, drop the lock, shoot down every CPU that may cache the mapping,
   and only then free; repeat until the range is done, letting the CPU
   catch up between batches (sched_point). The last batch also takes the
   tables the range left empty (vm_prune), under the same shootdown.
   Returns the pages unmapped. Called with no spin lock held. */
uint64_t space_unmap(struct space *sp, uint64_t va, uint64_t len)
{
	uint64_t a = va, end = va + len, total = 0;
	for (int done = 0, round = 0; ; round++) {
		struct frame_batch b;
		if (round)
			sched_point();   /* a large unmap (256 MiB: 38 ms) must not hold the CPU */
		b.n = b.nt = 0;
		b.unmapped = 0;
		spin_lock(&sp->lock);
		done = done || vm_unmap_collect(sp->pml4, &a, end, &b);
		int pruned = done && vm_prune(sp, va, end, &b);
		sp->pages -= b.unmapped;
		spin_unlock(&sp->lock);
		shake();         /* unmapped, other CPUs' TLBs still hold the frames */
		if (b.unmapped || b.nt) {
			tlb_shootdown(sp);
			batch_free(&b);
		}
		total += b.unmapped;
		if (pruned || (!b.unmapped && !b.nt))
			break;
	}
	return total;
}

/* Free sp's tables in [lo, hi) that hold nothing, after the shootdown
   (a segment's unmap: seg.c). No spin lock held. */
void space_prune(struct space *sp, uint64_t lo, uint64_t hi)
{
	for (int done = 0; !done;) {
		struct frame_batch b;
		b.nt = b.n = 0;
		spin_lock(&sp->lock);
		done = vm_prune(sp, lo, hi, &b);
		spin_unlock(&sp->lock);
		if (!b.nt)
			break;
		tlb_shootdown(sp);
		batch_free(&b);
	}
}
