/*
 * fault KIND: does one thing the kernel must not let a user program get
 * away with; the kernel should kill the space (status -1). If the program
 * survives, it says so and exits 1. Every address comes through a volatile
 * variable so GCC cannot see (and "optimize") the undefined behaviour.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

int main(int argc, char **argv);

/* A `ret` in writable, and so non-executable, data. */
static unsigned char data_code[16] = { 0xc3 };

static volatile uintptr_t addr;

static const char *const kinds[] = {
	"null-read", "null-write", "write-text", "exec-data", "kernel-read",
	"noncanonical", "div0", "ud2", "priv",
};

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
