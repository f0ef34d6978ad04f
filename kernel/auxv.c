/*
 * The auxiliary vector of a new image (space.c's setup_stack, for spawn
 * and exec alike): Linux x86-64's entries, so a program's getauxval
 * finds its program headers, the page size, its entry, 16 random bytes
 * (RDRAND, else the TSC stirred), the CPU's feature bits, the platform
 * and its path. Their strings and random bytes lie just below the
 * argument strings; AUXV_BYTES bounds all of it.
 */
#include "kernel.h"
#include <anima/auxv.h>

/* A random word: RDRAND (retried as Intel advises), else the TSC
   stirred (splitmix64's finisher): unpredictable enough to be a seed,
   not a key. */
static uint64_t rand_word(void)
{
	uint32_t a, b, c, d;
	cpuid(1, 0, &a, &b, &c, &d);
	for (int i = 0; (c & (1u << 30)) && i < 16; i++) {
		uint64_t v;
		uint8_t ok;
		__asm__ volatile("rdrand %0; setc %1" : "=r"(v), "=qm"(ok));
		if (ok)
			return v;
	}
	uint64_t z = rdtsc() + 0x9e3779b97f4a7c15UL * (uint64_t)(uintptr_t)&a;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
	return z ^ (z >> 31);
}

/* Bytes the strings and random bytes take (execfn's length is bounded
   by the callers: a path of FPATH_MAX, a module's name). */
size_t auxv_strbytes(const char *execfn)
{
	return 16 + sizeof "x86_64" + strlen(execfn) + 1;
}

/* Write the random bytes and strings into sp at lo (auxv_strbytes of
   room), and the AUXV_PAIRS pairs into aux: 0 or -EFAULT. */
int auxv_build(struct space *sp, uint64_t lo, const struct auxinfo *in, uint64_t *aux)
{
	uint64_t rnd[2] = { rand_word(), rand_word() };
	uint64_t plat = lo + 16, fn = plat + sizeof "x86_64";
	int r = space_write(sp, lo, rnd, 16);
	r = r ? r : space_write(sp, plat, "x86_64", sizeof "x86_64");
	r = r ? r : space_write(sp, fn, in->execfn, strlen(in->execfn) + 1);
	uint32_t a, b, c, d;
	cpuid(1, 0, &a, &b, &c, &d);
	const uint64_t v[AUXV_PAIRS][2] = {
		{ AT_PHDR, in->phdr }, { AT_PHENT, 56 }, { AT_PHNUM, in->phnum },
		{ AT_PAGESZ, PGSIZE }, { AT_BASE, 0 }, { AT_FLAGS, 0 }, { AT_ENTRY, in->entry },
		{ AT_UID, 0 }, { AT_EUID, 0 }, { AT_GID, 0 }, { AT_EGID, 0 },
		{ AT_PLATFORM, plat }, { AT_HWCAP, d }, { AT_CLKTCK, 100 }, { AT_SECURE, 0 },
		{ AT_RANDOM, lo }, { AT_EXECFN, fn }, { AT_NULL, 0 },
	};
	memcpy(aux, v, sizeof v);
	return r;
}
