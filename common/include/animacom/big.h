/*
 * Big unsigned integers for exact floating-point conversion: printing
 * (fmt.c, kernel-safe: no library calls) and parsing (strtod.c). The
 * includer sets BIG_LIMBS, the 32-bit limbs a number may need.
 */
#ifndef ULIB_BIG_H
#define ULIB_BIG_H

#include <stdint.h>

struct big {
	int n;                   /* limbs in use; 0 means the value 0 */
	uint32_t w[BIG_LIMBS];   /* little-endian */
};

static inline void big_set(struct big *b, uint64_t v)
{
	b->n = 0;
	while (v) {
		b->w[b->n++] = (uint32_t)v;
		v >>= 32;
	}
}

static inline void big_mul(struct big *b, uint32_t m)
{
	uint64_t carry = 0;
	for (int i = 0; i < b->n; i++) {
		carry += (uint64_t)b->w[i] * m;
		b->w[i] = (uint32_t)carry;
		carry >>= 32;
	}
	if (carry)
		b->w[b->n++] = (uint32_t)carry;
}

static inline void big_shl(struct big *b, int bits)
{
	for (; bits >= 16; bits -= 16)
		big_mul(b, 1u << 16);
	if (bits)
		big_mul(b, 1u << bits);
}

static inline void big_pow10(struct big *b, int k)
{
	for (; k >= 9; k -= 9)
		big_mul(b, 1000000000u);
	for (; k > 0; k--)
		big_mul(b, 10);
}

static inline int big_cmp(const struct big *a, const struct big *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (int i = a->n - 1; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

/* b += v */
static inline void big_add(struct big *b, uint32_t v)
{
	for (int i = 0; v; i++) {
		if (i == b->n)
			b->w[b->n++] = 0;
		uint64_t t = (uint64_t)b->w[i] + v;
		b->w[i] = (uint32_t)t;
		v = (uint32_t)(t >> 32);
	}
}

#endif
