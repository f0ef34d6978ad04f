/*
 * The auxiliary vector (kernel/auxv.c): found once at start, after the
 * environment's null (docs/abi.md), before any setenv can move
 * `environ`; getauxval reads it as glibc's does: ENOENT for a type it
 * does not hold (AT_NULL included).
 */
#include <sys/auxv.h>
#include <errno.h>
#include <stdint.h>

static const uint64_t *auxv;

/* start.c: envp is the kernel's environment vector. */
void __auxv_start(char **envp);
void __auxv_start(char **envp)
{
	while (*envp)
		envp++;
	auxv = (const uint64_t *)(envp + 1);
}

unsigned long getauxval(unsigned long type)
{
	for (const uint64_t *p = auxv; p && p[0] != AT_NULL; p += 2)
		if (p[0] == type)
			return p[1];
	errno = ENOENT;
	return 0;
}
