/*
 * SMP bring-up: start every processor the MADT lists, one at a time,
 * through the real-mode trampoline in boot/ap.S.
 */
#include "kernel.h"

#define AP_TRAMP 0x8000

extern char ap_tramp[], ap_tramp_end[], tramp_cr3[];
extern uint64_t ap_boot_cr3, ap_boot_stack;
extern uint64_t boot_pml4[];
static struct cpu *volatile starting;

#define AP_STACK_PAGES 4

void ap_main(void)
{
	struct cpu *c = starting;
	c->self = c;
	wrmsr(MSR_GS_BASE, (uint64_t)c);    /* before anything calls mycpu() */
	idt_load();
	cpu_init(c);
	lapic_init();
	syscall_init_cpu();
	sched_init_cpu(c);
	kprintf("@cpu {\"id\": %d, \"apic\": %u}\n", c->id, c->apic_id);
	__atomic_store_n(&c->online, 1, __ATOMIC_RELEASE);
	scheduler();
}

void smp_boot(void)
{
	memcpy(P2V(AP_TRAMP), ap_tramp, ap_tramp_end - ap_tramp);
	*(uint32_t *)P2V(AP_TRAMP + (tramp_cr3 - ap_tramp)) = (uint32_t)K2P(boot_pml4);
	ap_boot_cr3 = kernel_cr3;
	for (int i = 0; i < madt_ncpu; i++) {
		if (madt_apic_ids[i] == cpus[0].apic_id)
			continue;
		struct cpu *c = &cpus[ncpu];
		c->id = ncpu;
		c->apic_id = madt_apic_ids[i];
		uint8_t *stack = pages_alloc(AP_STACK_PAGES);
		if (!stack)
			panic("smp: no memory for a CPU stack");
		ap_boot_stack = (uint64_t)stack + AP_STACK_PAGES * PGSIZE;
		starting = c;
		lapic_startup(c->apic_id, AP_TRAMP);
		/* A generous wait: under TCG each CPU is a host thread, and a
		   loaded host (load 12 beside CI's boots) left one unscheduled
		   past the 1 s this used to allow, so a good CPU was dropped.
		   A started CPU answers in microseconds; only a dead one pays. */
		uint64_t deadline = now_ns() + 10000000000UL;
		while (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE) && now_ns() < deadline)
			pause();
		if (!c->online) {
			kprintf("smp: cpu with apic id %u did not start\n", c->apic_id);
			continue;
		}
		ncpu++;
	}
}
