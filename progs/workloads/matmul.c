/*
 * matmul (Phoenix's matrix multiply): C = A B for N x N integer
 * matrices, each thread a band of C's rows (B transposed first, so the
 * inner loop walks both rows). The check (Freivalds): C v = A (B v) for
 * a vector v from the seed, in N^2 steps instead of N^3.
 */
#include "wl.h"

#define N0 192                        /* times the cube root of SCALE, roughly */

static int32_t *a, *bt, *c;
static int n, nthr;

static void *rows(void *arg)
{
	size_t lo, hi;
	wl_part((size_t)n, (long)arg, nthr, &lo, &hi);
	for (size_t i = lo; i < hi; i++)
		for (int j = 0; j < n; j++) {
			const int32_t *x = a + i * n, *y = bt + (size_t)j * n;
			int32_t s = 0;
			for (int k = 0; k < n; k++)
				s += x[k] * y[k];
			c[i * n + j] = s;
		}
	return 0;
}

/* out = M v, with M row-major (t = 0) or given transposed (t = 1). */
static void mulvec(const int32_t *m, int t, const int32_t *v, int32_t *out)
{
	for (int i = 0; i < n; i++) {
		int32_t s = 0;
		for (int k = 0; k < n; k++)
			s += (t ? m[(size_t)k * n + i] : m[(size_t)i * n + k]) * v[k];
		out[i] = s;
	}
}

int main(int argc, char **argv)
{
	int scale;
	wl_args(argc, argv, &nthr, &scale);
	n = N0;
	while ((long)n * n * n < (long)N0 * N0 * N0 * scale)
		n += 16;
	size_t nn = (size_t)n * n;
	a = wl_alloc(4 * nn), bt = wl_alloc(4 * nn), c = wl_alloc(4 * nn);
	uint64_t s = 3;
	for (size_t i = 0; i < nn; i++) {
		a[i] = (int32_t)(wl_rand(&s) % 201) - 100;
		bt[i] = (int32_t)(wl_rand(&s) % 201) - 100;
	}
	uint64_t t0 = wl_now();
	wl_par(nthr, rows);
	uint64_t ns = wl_now() - t0;
	int32_t *v = wl_alloc(4 * n), *bv = wl_alloc(4 * n), *abv = wl_alloc(4 * n), *cv = wl_alloc(4 * n);
	for (int i = 0; i < n; i++)
		v[i] = (int32_t)(wl_rand(&s) % 7) - 3;
	mulvec(bt, 1, v, bv);         /* B v, B being bt transposed */
	mulvec(a, 0, bv, abv);
	mulvec(c, 0, v, cv);
	int ok = !memcmp(abv, cv, 4 * (size_t)n);
	char extra[32];
	snprintf(extra, sizeof extra, ", \"n\": %d", n);
	return wl_report("matmul", nthr, ns, ok, extra);
}
