/*
 * intsweep: `int $N` from user mode for every vector N, 0 to 255
 * (harness/tests/test_faults.py::test_int_n_every_vector).
 *
 * Every IDT gate is DPL 0, so each must be a general protection fault in
 * the caller (error code N*8+2: the IDT, external bit clear; QEMU's TCG
 * reports N*16+2, the offset of the 16-byte gate), killing only
 * that space: never an entry into the kernel's handler for the vector (a
 * page fault without its error code, the double-fault or NMI handler on
 * their IST stacks, a timer or TLB-shootdown interrupt, a spurious-IRQ
 * path that just returns). The root spawns "intsweep N" for each vector
 * in turn and prints @result {"name": "intsweep", "vectors": 256,
 * "killed": K, "survived": [N...]}; the harness checks each kill line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include "child.h"

/* 256 stubs of 16 bytes: `int $N; ret`, padded. */
__asm__(".text\n.align 16\n.globl int_stubs\nint_stubs:\n"
	".set n, 0\n.rept 256\n.align 16\nint $n\nret\n.set n, n + 1\n.endr\n");
extern char int_stubs[];

int main(int argc, char **argv)
{
	if (argc > 1) {
		int n = atoi(argv[1]);
		((void (*)(void))(int_stubs + 16 * n))();
		printf("intsweep: int $%d did not fault\n", n);
		return 1;
	}
	int killed = 0, nsurv = 0, surv[256];
	for (int n = 0; n < 256; n++) {
		char a[8];
		snprintf(a, sizeof a, "%d", n);
		const char *av[] = { "intsweep", a };
		int st = child_status(sys_spawn("intsweep", 2, av));
		if (st == -1)
			killed++;
		else
			surv[nsurv++] = n;
	}
	printf("@result {\"name\": \"intsweep\", \"vectors\": 256, \"killed\": %d, \"survived\": [", killed);
	for (int i = 0; i < nsurv; i++)
		printf("%s%d", i ? ", " : "", surv[i]);
	printf("]}\n");
	return nsurv != 0;
}
