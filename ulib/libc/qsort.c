/*
 * qsort: introsort. Quicksort with median-of-three pivots; insertion sort
 * for short ranges; heapsort for a range once the recursion gets deeper
 * than 2*log2(n), which bounds the worst case at O(n log n). The smaller
 * side recurses and the larger loops, so the stack stays O(log n).
 * qsort_r is GNU's (the context is the comparison's third argument).
 * bsearch: binary search over a sorted array.
 */
#include <stdlib.h>
#include <stdint.h>

typedef int (*cmp_fn)(const void *, const void *);

/* The comparison, with qsort_r's extra argument (qsort's cmp takes none:
   it is called through `plain`). */
struct cmpx {
	int (*fn)(const void *, const void *, void *);
	void *ctx;
};
#define CMP(a, b) cmp->fn((a), (b), cmp->ctx)

static void swap(char *a, char *b, size_t size)
{
	if (a == b)
		return;
	if (size % 8 == 0 && (((uintptr_t)a | (uintptr_t)b) & 7) == 0) {
		for (size_t i = 0; i < size; i += 8) {
			uint64_t t = *(uint64_t *)(a + i);
			*(uint64_t *)(a + i) = *(uint64_t *)(b + i);
			*(uint64_t *)(b + i) = t;
		}
		return;
	}
	for (size_t i = 0; i < size; i++) {
		char t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

static void insertion(char *base, size_t n, size_t size, const struct cmpx *cmp)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && CMP(base + (j - 1) * size, base + j * size) > 0; j--)
			swap(base + (j - 1) * size, base + j * size, size);
}

static void sift_down(char *base, size_t root, size_t n, size_t size, const struct cmpx *cmp)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && CMP(base + child * size, base + (child + 1) * size) < 0)
			child++;
		if (CMP(base + root * size, base + child * size) >= 0)
			return;
		swap(base + root * size, base + child * size, size);
		root = child;
	}
}

static void heapsort(char *base, size_t n, size_t size, const struct cmpx *cmp)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(base, i, n, size, cmp);
	for (size_t end = n - 1; end > 0; end--) {
		swap(base, base + end * size, size);
		sift_down(base, 0, end, size, cmp);
	}
}

static void introsort(char *base, size_t n, size_t size, const struct cmpx *cmp, int depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			heapsort(base, n, size, cmp);
			return;
		}
		/* Median of first, middle, last moves to the front as pivot. */
		char *a = base, *m = base + n / 2 * size, *z = base + (n - 1) * size;
		if (CMP(a, m) > 0) swap(a, m, size);
		if (CMP(m, z) > 0) swap(m, z, size);
		if (CMP(a, m) > 0) swap(a, m, size);
		swap(base, m, size);
		/* Hoare partition around base[0]; equal keys split evenly. */
		size_t i = 0, j = n;
		for (;;) {
			do i++; while (i < n && CMP(base + i * size, base) < 0);
			do j--; while (CMP(base + j * size, base) > 0);
			if (i >= j)
				break;
			swap(base + i * size, base + j * size, size);
		}
		swap(base, base + j * size, size);
		/* Now [0, j) <= pivot at j <= (j, n). */
		size_t left = j, right = n - j - 1;
		if (left < right) {
			introsort(base, left, size, cmp, depth);
			base += (j + 1) * size;
			n = right;
		} else {
			introsort(base + (j + 1) * size, right, size, cmp, depth);
			n = left;
		}
	}
	insertion(base, n, size, cmp);
}

void qsort_r(void *base, size_t n, size_t size,
	     int (*fn)(const void *, const void *, void *), void *ctx)
{
	struct cmpx c = { fn, ctx };
	int depth = 0;
	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	if (n > 1 && size)
		introsort(base, n, size, &c, depth);
}

static int plain(const void *a, const void *b, void *fn)
{
	return ((cmp_fn)fn)(a, b);
}

void qsort(void *base, size_t n, size_t size, cmp_fn cmp)
{
	qsort_r(base, n, size, plain, (void *)cmp);
}

void *bsearch(const void *key, const void *base, size_t n, size_t size, cmp_fn cmp)
{
	const char *lo = base;
	while (n) {
		const char *mid = lo + n / 2 * size;
		int c = cmp(key, mid);
		if (c == 0)
			return (void *)mid;
		if (c > 0) {
			lo = mid + size;
			n -= n / 2 + 1;
		} else
			n /= 2;
	}
	return 0;
}
