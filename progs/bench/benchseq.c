/*
 * benchseq SPEC...: run programs one after another, each in a space of its
 * own, starting the next only when the last has ended. Benchmarks then
 * share one boot (QEMU's boot is the slow part of a short icount run)
 * without sharing a CPU: while a child runs, benchseq waits in the kernel.
 *
 * A SPEC is PROG or PROG+ARG+ARG... ('+' stands for the commas the kernel
 * command line already uses between benchseq's own arguments), e.g.
 *     run=benchseq,ubench+1000,pkgbench+fifo,pkgbench+kthread
 * The kernel's @start and @exit lines tell whose results are whose.
 * Exit status: 0 iff every child was started and exited 0.
 */
#include <stdio.h>
#include <string.h>
#include <animart/sys.h>
#include <errno.h>

#define MAXARGS 16

/* Split spec in place at '+' into argv; returns argc. */
static int split(char *spec, const char **argv)
{
	int argc = 0;
	argv[argc++] = spec;
	for (char *p = spec; *p && argc < MAXARGS; p++)
		if (*p == '+') {
			*p = 0;
			argv[argc++] = p + 1;
		}
	return argc;
}

int main(int argc, char **argv)
{
	int failed = 0;
	for (int i = 1; i < argc; i++) {
		const char *args[MAXARGS];
		int n = split(argv[i], args);
		long id = sys_spawn(args[0], n, args);
		if (id < 0) {
			printf("benchseq: cannot start %s: %s\n", args[0], errname((int)id));
			failed++;
			continue;
		}
		int status = 0;
		long r = sys_wait((int)id, &status);
		if (r != id || status != 0) {
			printf("benchseq: %s ended with status %d\n", args[0], r == id ? status : -1);
			failed++;
		}
	}
	return failed ? 1 : 0;
}
