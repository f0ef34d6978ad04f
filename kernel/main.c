/*
 * kmain: the boot CPU's path from boot.S to the scheduler. The order
 * matters: memory before anything that allocates, the IDT before
 * anything that can fault, time before SMP (start-up delays need it).
 */
#include "kernel.h"
#include "disk.h"

void kmain(uint32_t magic, uint64_t mbi)
{
	struct cpu *c = &cpus[0];
	c->self = c;
	wrmsr(MSR_GS_BASE, (uint64_t)c);    /* mycpu() works from here on */
	console_init();
	multiboot_parse(magic, mbi);
	cmdline_parse(boot_cmdline);
	pmm_init();
	vm_init();
	cow_init();
	struct module *syms = module_find("ksyms");
	if (syms)
		ksyms_load(syms->start, syms->end - syms->start);
	lockcheck_patch();           /* the `lockcheck` word: before any AP runs */
	idt_init();
	cpu_init(c);
	acpi_init();
	lapic_init();
	c->apic_id = lapic_id();
	time_calibrate();
	rtc_init();
	syscall_init_cpu();
	sched_init_cpu(c);
	kprintf("@cpu {\"id\": 0, \"apic\": %u}\n", c->apic_id);
	c->online = 1;
	smp_boot();
	trace_init();
	blk_init();                  /* the disk, if QEMU has one (disk.h) */
	bcache_init();
	jitter_init();

	kprintf("Anima x86-64 research kernel: %d CPUs, %lu MiB memory\n", ncpu, mem_total_bytes >> 20);
	kprintf("@boot {\"cpus\": %d, \"mem_mib\": %lu, \"quantum_ms\": %lu, \"tsc_hz\": %lu, "
		"\"cal_windows\": %d, \"smap\": %d, \"smep\": %d, \"cmdline\": \"%s\"}\n", ncpu,
		mem_total_bytes >> 20, quantum_ns / 1000000, tsc_hz, cal_windows, have_smap, have_smep,
		boot_cmdline);
	if (modules_dropped)         /* a program past them would be "no such program" */
		kprintf("@warn {\"what\": \"boot modules past %d ignored\", \"dropped\": %d}\n",
			MAXMODULES, modules_dropped);
	cmdline_start_programs();
	scheduler();
}
