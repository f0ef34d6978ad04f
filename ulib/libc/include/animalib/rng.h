/*
 * rand64: splitmix64, a fast 64-bit generator whose whole state is one
 * word the caller owns (so each thread can have its own). Any seed works,
 * including 0. rand_below(state, n): uniform in [0, n), n > 0.
 */
#ifndef ULIB_RNG_H
#define ULIB_RNG_H

#include <stdint.h>

static inline uint64_t rand64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rand_below(uint64_t *state, uint64_t n)
{
	/* Multiply-shift: bias is at most n / 2^64, fine for tests. */
	return (uint64_t)(((unsigned __int128)rand64(state) * n) >> 64);
}

#endif
