/*
 * Per-CPU set-up: GDT with a TSS, segment registers, the GS base that
 * mycpu() reads, and the control-register features the kernel relies on
 * (NX, write-protect, SSE for user code, global pages, SMEP/SMAP).
 */
#include "kernel.h"

struct cpu cpus[MAXCPU];
int ncpu = 1;
int have_smap, have_smep;

#define IST_SIZE 8192

static void load_gdt(struct cpu *c)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) gdtr = { sizeof c->gdt - 1, (uint64_t)c->gdt };
	__asm__ volatile(
		"lgdt %0\n"
		"mov %1, %%ds\n mov %1, %%es\n mov %1, %%ss\n"
		"xor %%eax, %%eax\n mov %%ax, %%fs\n mov %%ax, %%gs\n"
		"pushq %2\n lea 1f(%%rip), %%rax\n pushq %%rax\n lretq\n"   /* reload cs */
		"1:\n"
		: : "m"(gdtr), "r"((uint64_t)KDATA_SEL), "i"(KCODE_SEL) : "rax", "memory");
	__asm__ volatile("ltr %w0" : : "r"(TSS_SEL));
}

void cpu_init(struct cpu *c)
{
	c->self = c;
	c->gdt[0] = 0;
	c->gdt[1] = 0x00af9a000000ffffUL;   /* kernel code */
	c->gdt[2] = 0x00cf92000000ffffUL;   /* kernel data */
	/* Slot 3 (0x18) is where SYSRET's layout puts a 32-bit user code
	   segment; 64-bit SYSRET never reads it, so it stays null. A ring-3
	   32-bit code descriptor here let user code far-jump into
	   compatibility mode, where `syscall` goes to MSR_CSTAR (AMD, and
	   QEMU's TCG): ring 0 at rip 0 on the user's stack. */
	c->gdt[3] = 0;
	c->gdt[4] = 0x00cff2000000ffffUL;   /* user data */
	c->gdt[5] = 0x00affa000000ffffUL;   /* user code, 64-bit */
	uint64_t base = (uint64_t)&c->tss, limit = sizeof c->tss - 1;
	c->gdt[6] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89UL << 40) |
		    (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	c->gdt[7] = base >> 32;
	/* Separate stacks for double fault, NMI and machine check, so they
	   work even when the kernel stack is bad. */
	if (!c->ist_stacks && !(c->ist_stacks = pages_alloc(3 * IST_SIZE / PGSIZE)))
		panic("cpu_init: no memory for IST stacks");
	for (int i = 0; i < 3; i++)
		c->tss.ist[i] = (uint64_t)c->ist_stacks + (i + 1) * IST_SIZE;
	c->tss.iomap = sizeof c->tss;
	load_gdt(c);
	wrmsr(MSR_GS_BASE, (uint64_t)c);
	wrmsr(MSR_KERNEL_GS, 0);
	idt_load();

	uint32_t a, b, cc, d;
	cpuid(7, 0, &a, &b, &cc, &d);
	have_smep = (b >> 7) & 1;
	have_smap = (b >> 20) & 1;
	/* NE: an unmasked x87 exception is #MF in the faulting context. Without
	   it the legacy FERR#/IRQ 13 path (the PIC is masked) lost it: a
	   user's 1/0 with zero-divide unmasked went on as if nothing were. */
	lcr0((rcr0() & ~(CR0_EM | CR0_TS)) | CR0_MP | CR0_NE | CR0_WP);
	uint64_t cr4 = rcr4() | CR4_OSFXSR | CR4_OSXMMEXCPT | (1 << 7);
	if (have_smep)
		cr4 |= CR4_SMEP;
	if (have_smap)
		cr4 |= CR4_SMAP;
	/* User code switches its own FS base (a thread's TLS pointer) with
	   wrfsbase, with no syscall; the kernel never uses FS, and keeps
	   each VP's value across VP switches (sched.c). */
	if (b & 1)
		cr4 |= CR4_FSGSBASE;
	lcr4(cr4);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE | EFER_NXE);
	__asm__ volatile("fninit");
}
