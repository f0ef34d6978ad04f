/*
 * compatmode: a hostile program leaves 64-bit mode. The GDT's slot at
 * 0x18 is a ring-3 32-bit code segment (for SYSRET's layout only), so a
 * far return to selector 0x1b puts user code in compatibility mode.
 * There `syscall` goes to MSR_CSTAR on AMD and under QEMU's TCG, which
 * the kernel never set: ring 0 at rip 0 on the user's stack.
 * Argument: "syscall" (default) runs `syscall` there; "fault" does
 * nothing but fault (ud2). Either way only this space may die, with a
 * one-line message; a second VP spins to show the kernel goes on.
 * Without arguments exits 0 if the far return itself was refused.
 */
#include <stdio.h>
#include <string.h>
#include <animart/sys.h>

/* A far jump (m16:32 operand: no stack access) to 0x1b:code32. */
static __attribute__((noinline)) void far_jump(int sys)
{
	static struct { uint32_t off; uint16_t sel; } __attribute__((packed)) target;
	extern char code32_sys[], code32_ud[];
	target.off = (uint32_t)(uint64_t)(sys ? code32_sys : code32_ud);
	target.sel = 0x1b;
	__asm__ volatile(
		"ljmpl *%0\n"
		".globl code32_sys, code32_ud\n"
		"code32_sys: .byte 0x0f, 0x05\n"   /* syscall, in compatibility mode */
		"code32_ud: .byte 0x0f, 0x0b\n"    /* ud2 */
		: : "m"(target) : "rax", "rcx", "r11", "memory");
}

int main(int argc, char **argv)
{
	int sys = argc < 2 || strcmp(argv[1], "fault");
	printf("compatmode: entering compatibility mode (%s)\n", sys ? "syscall" : "fault");
	/* lretq to 0x1b:label; the 32-bit code at label runs syscall (0f 05)
	   or ud2 (0f 0b). */
	if (sys)
		far_jump(1);
	else
		far_jump(0);
	printf("compatmode: still here\n");
	return 0;
}
