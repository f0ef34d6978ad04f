/*
 * getrandom and getentropy: bytes from the CPU's RDRAND (QEMU's TCG has
 * it under -cpu max, from the host's random source). On a CPU without
 * it, splitmix64 (animalib/rng.h) over a state seeded from the TSC and
 * stirred with the TSC at each call: different every run, but not fit
 * for keys; nothing here blocks. The flags only choose among sources
 * Linux has; all give these bytes.
 */
#include <sys/random.h>
#include <unistd.h>
#include <string.h>
#include <errno.h>
#include <cpuid.h>
#include <stdint.h>
#include <animalib/rng.h>

static int has_rdrand(void)
{
	static int known;                    /* 0 not asked, 1 no, 2 yes */
	if (!known) {
		unsigned a, b, c, d;
		known = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_RDRND) ? 2 : 1;
	}
	return known == 2;
}

static uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* One word: RDRAND (retried, as Intel advises, when it reports none
   ready), else the stirred generator. */
static uint64_t word(void)
{
	static uint64_t state;
	if (has_rdrand())
		for (int i = 0; i < 16; i++) {
			uint64_t v;
			unsigned char ok;
			__asm__ volatile("rdrand %0; setc %1" : "=r"(v), "=qm"(ok));
			if (ok)
				return v;
		}
	uint64_t s = __atomic_add_fetch(&state, tsc() | 1, __ATOMIC_RELAXED);
	return rand64(&s);
}

ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE) ||
	    (flags & (GRND_RANDOM | GRND_INSECURE)) == (GRND_RANDOM | GRND_INSECURE)) {
		errno = EINVAL;
		return -1;
	}
	if (n > 33554431)
		n = 33554431;                /* Linux's most per call */
	unsigned char *p = buf;
	for (size_t i = 0; i < n; i += 8) {
		uint64_t w = word();
		memcpy(p + i, &w, n - i < 8 ? n - i : 8);
	}
	return (ssize_t)n;
}

int getentropy(void *buf, size_t n)
{
	if (n > 256) {
		errno = EIO;
		return -1;
	}
	getrandom(buf, n, 0);
	return 0;
}
