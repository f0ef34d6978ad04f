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
		__atomic_store_n(&c->tlb_pending, 0, __ATOMIC_RELEASE);
	}
}

void tlb_shootdown(struct space *sp)
{
	struct cpu *me = mycpu();
	int sent[MAXCPU] = { 0 };
	if (me->cr3_space == sp)
		lcr3(rcr3());
	for (int i = 0; i < ncpu; i++) {
		struct cpu *c = &cpus[i];
		if (c != me && c->cr3_space == sp) {
			__atomic_store_n(&c->tlb_pending, 1, __ATOMIC_RELEASE);
			lapic_ipi(c->apic_id, T_TLB);
			sent[i] = 1;
		}
	}
	for (int i = 0; i < ncpu; i++)
		while (sent[i] && __atomic_load_n(&cpus[i].tlb_pending, __ATOMIC_ACQUIRE)) {
			tlb_check();
			pause();
		}
}

/* Clear the PTEs of [va, va+len) and chain the owned frames on `out`
   (through their first word) to be freed after the shootdown. */
uint64_t vm_unmap_collect(uint64_t *pml4, uint64_t va, uint64_t len, struct page_list *out)
{
	uint64_t n = 0, *pte;
	for (uint64_t a = va; (pte = vm_next(pml4, &a, va + len)); a += PGSIZE) {
		if (!(*pte & PTE_SHARED)) {
			void **pg = P2V(*pte & PTE_ADDR);
			*pg = out->head;
			out->head = pg;
		}
		*pte = 0;
		n++;
	}
	return n;
}

void page_list_free(struct page_list *l)
{
	while (l->head) {
		void **pg = l->head;
		l->head = *pg;
		page_free(pg);
	}
}
