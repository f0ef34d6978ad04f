/*
 * Multiboot entry. GRUB (multiboot2, the ISO) or QEMU's own loader
 * (multiboot1, `-kernel build/kernel.bin`: the harness's direct boot)
 * leaves us in 32-bit protected mode, paging off, eax = magic, ebx =
 * physical address of the boot information (kernel/multiboot.c reads
 * either). We build
 * just enough page tables to reach long mode in the higher half (the first
 * 1 GiB mapped three times: identity, at PHYSMAP and at KERNBASE), then call kmain(magic,
 * mbi). kmain replaces these tables with the real ones; the APs reuse them
 * on their way up (boot/ap.S).
 */
#include "mmu.h"

#define MB2_MAGIC 0xe85250d6
#define PHYS(x) ((x) - KERNBASE)

	.section .multiboot, "a"
	.align 8
mb2_header:
	.long MB2_MAGIC
	.long 0                                  /* architecture: i386 */
	.long mb2_end - mb2_header
	.long -(MB2_MAGIC + (mb2_end - mb2_header))
	.align 8                                 /* end tag */
	.short 0, 0
	.long 8
mb2_end:

/* Multiboot1 with the a.out kludge (flag 16): QEMU loads only 32-bit ELF
   files, so it gets build/kernel.bin, the flat image of our load segments
   from 1 MiB (objcopy -O binary), and these addresses say where it goes.
   Flag 1: the memory map. */
#define MB1_MAGIC 0x1badb002
#define MB1_FLAGS ((1 << 1) | (1 << 16))
	.align 4
mb1_header:
	.long MB1_MAGIC
	.long MB1_FLAGS
	.long -(MB1_MAGIC + MB1_FLAGS)
	.long PHYS(mb1_header)                   /* header_addr */
	.long PHYS(_kernel_start)                /* load_addr: the image's first byte */
	.long PHYS(_edata)                       /* load_end_addr */
	.long PHYS(_kernel_end)                  /* bss_end_addr */
	.long PHYS(_start)                       /* entry_addr */

	.section .boot.text, "ax"
	.code32
	.globl _start
_start:
	cli
	mov %eax, %edi                           /* kmain's arguments, kept across */
	mov %ebx, %esi

	/* boot_pd: 512 x 2 MiB pages covering the first 1 GiB */
	mov $PHYS(boot_pd), %ebx
	xor %ecx, %ecx
1:	mov %ecx, %eax
	shl $21, %eax
	or $(PTE_P | PTE_W | PTE_PS), %eax
	mov %eax, (%ebx, %ecx, 8)
	movl $0, 4(%ebx, %ecx, 8)
	inc %ecx
	cmp $512, %ecx
	jne 1b

	mov $PHYS(boot_pd) + (PTE_P | PTE_W), %eax
	mov %eax, PHYS(boot_pdpt)                /* pdpt[0]   -> 0..1 GiB */
	mov %eax, PHYS(boot_pdpt) + 510 * 8      /* pdpt[510] -> KERNBASE */
	mov $PHYS(boot_pdpt) + (PTE_P | PTE_W), %eax
	mov %eax, PHYS(boot_pml4)                /* pml4[0]   identity */
	mov %eax, PHYS(boot_pml4) + 511 * 8      /* pml4[511] higher half */
	mov %eax, PHYS(boot_pml4) + 256 * 8      /* pml4[256] PHYSMAP, so P2V works early */

	mov %cr4, %eax
	or $0x20, %eax                           /* PAE */
	mov %eax, %cr4
	mov $PHYS(boot_pml4), %eax
	mov %eax, %cr3
	mov $0xc0000080, %ecx                    /* EFER: long mode, NX */
	rdmsr
	or $((1 << 8) | (1 << 11)), %eax
	wrmsr
	mov %cr0, %eax
	or $0x80010000, %eax                     /* paging, write-protect */
	mov %eax, %cr0

	lgdt PHYS(boot_gdtr)
	ljmp $0x08, $PHYS(long_entry)

	.code64
long_entry:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	xor %ax, %ax
	mov %ax, %fs
	mov %ax, %gs
	movabs $higher_half, %rax
	jmp *%rax
higher_half:
	movabs $boot_stack_top, %rsp
	xor %rbp, %rbp
	call kmain                               /* edi = magic, esi = mbi */
1:	cli
	hlt
	jmp 1b

	.section .rodata
	.align 16
	.globl boot_gdt
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff                 /* 0x08 kernel code, 64-bit */
	.quad 0x00cf92000000ffff                 /* 0x10 kernel data */
boot_gdt_end:
boot_gdtr:
	.short boot_gdt_end - boot_gdt - 1
	.quad PHYS(boot_gdt)

	.section .bss
	.align 4096
	.globl boot_pml4
boot_pml4:	.space 4096
boot_pdpt:	.space 4096
boot_pd:	.space 4096
	.globl boot_stack_top
boot_stack:	.space 16384
boot_stack_top:
