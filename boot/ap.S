/*
 * Application-processor start. smp.c copies [ap_tramp, ap_tramp_end) to
 * physical AP_TRAMP (below 1 MiB) and sends INIT-SIPI-SIPI. Each AP wakes
 * in 16-bit real mode there, climbs to 64-bit mode on the boot page tables
 * (which identity-map low memory), jumps to ap_start64 in the higher half,
 * switches to the kernel's real page tables and its own stack, and calls
 * ap_main(). APs start one at a time, so one set of ap_boot_* variables is
 * enough.
 */
#include "mmu.h"
#define AP_TRAMP 0x8000
#define T(x) (AP_TRAMP + (x) - ap_tramp)

	.text
	.code16
	.globl ap_tramp, ap_tramp_end
ap_tramp:
	cli
	cld
	xor %ax, %ax
	mov %ax, %ds
	lgdtl T(tramp_gdtr)
	mov %cr0, %eax
	or $1, %eax                           /* protected mode */
	mov %eax, %cr0
	ljmpl $0x18, $T(tramp32)

	.code32
tramp32:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov %cr4, %eax
	or $0x20, %eax                        /* PAE */
	mov %eax, %cr4
	mov T(tramp_cr3), %eax
	mov %eax, %cr3
	mov $0xc0000080, %ecx
	rdmsr
	or $((1 << 8) | (1 << 11)), %eax      /* long mode, NX */
	wrmsr
	mov %cr0, %eax
	or $0x80010000, %eax                  /* paging, write-protect */
	mov %eax, %cr0
	ljmp $0x08, $T(tramp64)

	.code64
tramp64:
	movabs $ap_start64, %rax
	jmp *%rax

	.align 8
tramp_gdt:
	.quad 0
	.quad 0x00af9a000000ffff              /* 0x08 code, 64-bit */
	.quad 0x00cf92000000ffff              /* 0x10 data */
	.quad 0x00cf9a000000ffff              /* 0x18 code, 32-bit */
tramp_gdt_end:
tramp_gdtr:
	.short tramp_gdt_end - tramp_gdt - 1
	.long T(tramp_gdt)
	.globl tramp_cr3
tramp_cr3:
	.long 0                               /* boot_pml4, physical; set by smp.c */
ap_tramp_end:

/* Runs in the higher half, still on the boot page tables. */
ap_start64:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov ap_boot_cr3(%rip), %rax
	mov %rax, %cr3
	mov ap_boot_stack(%rip), %rsp
	xor %rbp, %rbp
	call ap_main
1:	cli
	hlt
	jmp 1b

	.data
	.globl ap_boot_cr3, ap_boot_stack
	.align 8
ap_boot_cr3:	.quad 0
ap_boot_stack:	.quad 0
