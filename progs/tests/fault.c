/*
 * fault KIND: does one thing the kernel must not let a user program get
 * away with; the kernel should kill the space (status -1). If the program
 * survives, it says so and exits 1. Every address comes through a volatile
 * variable so GCC cannot see (and "optimize") the undefined behaviour.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <animart/sys.h>

int main(int argc, char **argv);

/* A `ret` in writable, and so non-executable, data. */
static unsigned char data_code[16] = { 0xc3 };

static volatile uintptr_t addr;

static const char *const kinds[] = {
	"null-read", "null-write", "write-text", "exec-data", "kernel-read",
	"noncanonical", "div0", "ud2", "priv",
	/* instructions a user program may try on the kernel's entry points */
	"int3", "int80", "inttimer", "icebp", "trapflag", "tfsyscall", "cli",
	"inout", "rdmsr", "swapgs", "lidt", "movcr3", "movss", "iretq", "lret",
	"sysret", "x87div", "stack", "rspsyscall",
	/* pages whose access SYS_protect took away */
	"protro", "protnone", "protexec",
	/* the unmapped middle of a demand-zero region */
	"lazyhole",
	/* code in the last page below USER_TOP: the next rip is non-canonical */
	"topsyscall", "topfall",
	/* FPU/SSE state and the other ways into ring 0 */
	"avx", "x87pending", "sysenter",
	"rdpmc", "movdr7", "invlpg", "int8", "int14", "into",
};

/* Map the last page below USER_TOP, put `syscall` (0f 05) or `nop` (90)
   in its last bytes and jump there with rax = SYS_null. */
static void run_at_top(int sys)
{
	char *pg = sys_map((void *)(USER_TOP - 4096), 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
	if ((uintptr_t)pg != USER_TOP - 4096) {
		printf("fault: map of the top page failed: %ld\n", (long)pg);
		return;
	}
	memset(pg, 0x90, 4096);                 /* nops all the way to the top */
	if (sys) {
		pg[4094] = 0x0f;
		pg[4095] = 0x05;
	}
	addr = USER_TOP - (sys ? 2 : 1);
	__asm__ volatile("call *%0" : : "r"(addr), "a"(0L) : "rcx", "r11", "memory");
}

static void do_fault(const char *kind)
{
	if (!strcmp(kind, "null-read")) {
		addr = 0;
		(void)*(volatile int *)addr;
	} else if (!strcmp(kind, "null-write")) {
		addr = 0;
		*(volatile int *)addr = 1;
	} else if (!strcmp(kind, "write-text")) {
		addr = (uintptr_t)main;
		*(volatile unsigned char *)addr = 0xc3;
	} else if (!strcmp(kind, "exec-data")) {
		addr = (uintptr_t)data_code;
		((void (*)(void))addr)();
	} else if (!strcmp(kind, "kernel-read")) {
		addr = 0xffffffff80100000UL;
		(void)*(volatile int *)addr;
	} else if (!strcmp(kind, "noncanonical")) {
		addr = 0x0000900000000000UL;   /* bit 47 set, upper bits clear */
		(void)*(volatile int *)addr;
	} else if (!strcmp(kind, "div0")) {
		volatile int a = 1, b = 0;
		addr = (uintptr_t)(a / b);   /* used, so not optimized out */
	} else if (!strcmp(kind, "ud2")) {
		__asm__ volatile("ud2");
	} else if (!strcmp(kind, "priv")) {
		__asm__ volatile("hlt");       /* privileged: #GP in ring 3 */
	} else if (!strcmp(kind, "int3")) {
		__asm__ volatile("int3");      /* the kernel's gates are DPL 0 */
	} else if (!strcmp(kind, "int80")) {
		__asm__ volatile("int $0x80");
	} else if (!strcmp(kind, "inttimer")) {
		__asm__ volatile("int $0xf0"); /* an interrupt vector the kernel handles */
	} else if (!strcmp(kind, "icebp")) {
		__asm__ volatile(".byte 0xf1");   /* INT1: #DB, no gate DPL check */
	} else if (!strcmp(kind, "trapflag")) {
		/* single-stepping: #DB after the next instruction */
		__asm__ volatile("pushfq; orq $0x100, (%%rsp); popfq; nop; nop" ::: "memory", "cc");
	} else if (!strcmp(kind, "tfsyscall")) {
		/* TF set across SYSCALL: FMASK clears it in the kernel, sysret
		   puts it back, and the #DB must come in user mode */
		long r = 0;                    /* SYS_null */
		__asm__ volatile("pushfq; orq $0x100, (%%rsp); popfq; syscall; nop"
				 : "+a"(r) : : "rcx", "r11", "memory", "cc");
	} else if (!strcmp(kind, "cli")) {
		__asm__ volatile("cli");
	} else if (!strcmp(kind, "inout")) {
		__asm__ volatile("outb %%al, $0xf4" : : "a"(0));   /* QEMU's exit port */
	} else if (!strcmp(kind, "rdmsr")) {
		__asm__ volatile("rdmsr" : : "c"(0xc0000082) : "rax", "rdx");
	} else if (!strcmp(kind, "swapgs")) {
		__asm__ volatile("swapgs");
	} else if (!strcmp(kind, "lidt")) {
		static struct { uint16_t lim; uint64_t base; } __attribute__((packed)) z;
		__asm__ volatile("lidt %0" : : "m"(z));
	} else if (!strcmp(kind, "movcr3")) {
		__asm__ volatile("mov %0, %%cr3" : : "r"(0UL));
	} else if (!strcmp(kind, "movss")) {
		__asm__ volatile("mov %0, %%ss" : : "r"(0x10));    /* the kernel's data */
	} else if (!strcmp(kind, "iretq")) {
		/* a frame returning to the kernel's code selector */
		__asm__ volatile("mov %%rsp, %%rax; pushq $0x2b; pushq %%rax; pushfq; pushq $0x8;"
				 "pushq $1f; iretq; 1:" ::: "rax", "memory");
	} else if (!strcmp(kind, "lret")) {
		__asm__ volatile("pushq $0x8; pushq $1f; lretq; 1:" ::: "memory");
	} else if (!strcmp(kind, "sysret")) {
		__asm__ volatile("sysretq");
	} else if (!strcmp(kind, "x87div")) {
		/* unmask x87 zero-divide, then divide: #MF */
		uint16_t cw = 0x37b;
		__asm__ volatile("fldcw %0; fld1; fldz; fdivrp %%st, %%st(1); fwait" : : "m"(cw));
	} else if (!strcmp(kind, "rspsyscall")) {
		/* a non-canonical rsp across SYSCALL (sysret does not check
		   it): the kernel runs on its own stack, the push faults here */
		long r = 0;
		__asm__ volatile("mov %%rsp, %%rbx; mov %1, %%rsp; syscall; push %%rax; mov %%rbx, %%rsp"
				 : "+a"(r) : "r"(0x0000900000000000UL) : "rbx", "rcx", "r11", "memory");
	} else if (!strcmp(kind, "protro") || !strcmp(kind, "protnone") || !strcmp(kind, "protexec")) {
		static const unsigned char ret[] = { 0xc3 };
		char *p = sys_map(0, 4096, PROT_READ | PROT_WRITE);
		memcpy(p, ret, 1);
		addr = (uintptr_t)p;
		if (!strcmp(kind, "protro")) {
			sys_protect(p, 4096, PROT_READ);
			*(volatile char *)addr = 1;
		} else if (!strcmp(kind, "protnone")) {
			sys_protect(p, 4096, 0);
			(void)*(volatile char *)addr;
		} else {
			sys_protect(p, 4096, PROT_READ | PROT_EXEC);
			((void (*)(void))addr)();     /* runs: a ret */
			sys_protect(p, 4096, PROT_READ);
			((void (*)(void))addr)();     /* no longer */
		}
	} else if (!strcmp(kind, "lazyhole")) {
		char *p = sys_map(0, 16 * 4096, PROT_READ | PROT_WRITE | MAP_LAZY);
		p[0] = p[15 * 4096] = 1;                /* the ends still fill */
		sys_unmap(p + 4 * 4096, 4 * 4096);
		addr = (uintptr_t)p + 5 * 4096;
		(void)*(volatile char *)addr;           /* filled a page before */
	} else if (!strcmp(kind, "topsyscall") || !strcmp(kind, "topfall")) {
		/* The last user page, with `syscall` (SYS_null) or a `nop` in
		   its last bytes: the instruction after it is at USER_TOP, the
		   first non-canonical address. SYSRET to it would #GP in ring 0
		   on Intel (with the user's GS loaded), IRETQ to it too. */
		run_at_top(!strcmp(kind, "topsyscall"));
	} else if (!strcmp(kind, "avx")) {
		/* CR4.OSXSAVE is off: no AVX state the kernel does not save */
		__asm__ volatile("vxorps %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
	} else if (!strcmp(kind, "x87pending")) {
		/* an unmasked x87 exception left pending (no wait), then many
		   context switches (yields, a sleep) with other spaces' VPs
		   running: the kernel's fxsave/fxrstor must neither raise it in
		   ring 0 nor lose it. It comes at our next waiting x87 op. */
		uint16_t cw = 0x37b;
		__asm__ volatile("fldcw %0; fld1; fldz; fdivrp %%st, %%st(1)" : : "m"(cw));
		for (int i = 0; i < 20; i++)
			sys_yield();
		sys_sleep(2000000);
		__asm__ volatile("fwait");
	} else if (!strcmp(kind, "sysenter")) {
		/* never set up (IA32_SYSENTER_CS 0): #GP on Intel, #UD on AMD */
		__asm__ volatile("sysenter");
	} else if (!strcmp(kind, "rdpmc")) {
		__asm__ volatile("rdpmc" : : "c"(0) : "rax", "rdx");   /* CR4.PCE off */
	} else if (!strcmp(kind, "movdr7")) {
		__asm__ volatile("mov %0, %%dr7" : : "r"(0x3UL));
	} else if (!strcmp(kind, "invlpg")) {
		__asm__ volatile("invlpg (%0)" : : "r"(0xffffffff80100000UL) : "memory");
	} else if (!strcmp(kind, "int8")) {
		__asm__ volatile("int $8");      /* the double-fault vector (IST) */
	} else if (!strcmp(kind, "int14")) {
		__asm__ volatile("int $14");     /* page fault, without an error code */
	} else if (!strcmp(kind, "into")) {
		__asm__ volatile(".byte 0xce");  /* INTO: invalid in 64-bit mode */
	} else if (!strcmp(kind, "stack")) {
		/* a stack pointer into the kernel, then a push */
		__asm__ volatile("mov %0, %%rsp; push %%rax" : : "r"(0xffffffff80200000UL));
	}
}

int main(int argc, char **argv)
{
	unsigned i = 0;
	if (argc == 2)
		for (; i < sizeof kinds / sizeof kinds[0]; i++)
			if (!strcmp(argv[1], kinds[i]))
				break;
	if (argc != 2 || i == sizeof kinds / sizeof kinds[0]) {
		printf("usage: fault KIND, KIND one of:");
		for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
			printf(" %s", kinds[i]);
		printf("\n");
		return 2;
	}
	printf("fault: doing %s\n", argv[1]);
	do_fault(argv[1]);
	printf("fault: %s did not fault\n", argv[1]);
	return 1;
}
