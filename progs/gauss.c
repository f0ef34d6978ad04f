/*
 * gauss PKG N THREADS VPS [REPS]: Gaussian elimination on an N x N
 * system (doubles), the rows dealt cyclically to THREADS threads of
 * package PKG running on VPS virtual processors (kthread ignores VPS:
 * each of its threads is a VP). One barrier per pivot step: with many
 * threads per processor the run is dominated by how cheaply the package
 * blocks and wakes threads at a barrier (Psyche, SOSP '91: 33.8 s with
 * kernel-level threads, 22.0 s with user-level threads).
 *
 * The matrix is diagonally dominant, so no pivoting is needed; the right
 * side is A x* for a known x*, and the result is checked by back
 * substitution against x* and by the residual |A x - b|.
 *
 * The time reported is the elimination only (threads created, run and
 * joined), summed over REPS repetitions, each on a fresh copy of A.
 *
 *   @result {"name": "gauss.PKG", "package", "n", "threads", "vps",
 *            "reps", "seconds", "ok", "err", "residual", "ncpu"}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys.h>
#include <sync.h>
#include <clock.h>
#include <rng.h>
#include <result.h>
#include "apppkg.h"

static const struct pkg *P;
static int n, nthreads, nvps, reps;
static double *a0, *a;          /* n rows of n+1 (the last column is b) */
static struct barrier bar;

#define A(m, i, j) ((m)[(size_t)(i) * (size_t)(n + 1) + (size_t)(j)])

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	for (int k = 0; k < n - 1; k++) {
		const double *pk = &A(a, k, 0);
		double inv = 1.0 / pk[k];
		/* first owned row below k */
		int i = k + 1 + ((me - (k + 1)) % nthreads + nthreads) % nthreads;
		for (; i < n; i += nthreads) {
			double *pi = &A(a, i, 0);
			double f = pi[k] * inv;
			pi[k] = 0.0;
			for (int j = k + 1; j <= n; j++)
				pi[j] -= f * pk[j];
		}
		barrier_wait(&bar);
	}
	return 0;
}

static double fabs_(double x)
{
	return x < 0 ? -x : x;
}

static void *main_fn(void *arg)
{
	(void)arg;
	struct thread **t = malloc(sizeof *t * (size_t)nthreads);
	if (!t) {
		printf("gauss: out of memory\n");
		return (void *)1;
	}
	uint64_t total = 0;
	for (int r = 0; r < reps; r++) {
		memcpy(a, a0, sizeof *a * (size_t)n * (size_t)(n + 1));
		barrier_init(&bar, nthreads);
		uint64_t t0 = now_ns();
		for (int i = 0; i < nthreads; i++)
			t[i] = app_create(P, worker, (void *)(intptr_t)i);
		for (int i = 0; i < nthreads; i++)
			thread_join(t[i]);
		total += now_ns() - t0;
	}

	/* Back substitution, then compare with x* = 1 + (i % 7) and compute
	   the residual against the original system. */
	double *x = malloc(sizeof *x * (size_t)n);
	for (int i = n - 1; i >= 0; i--) {
		double s = A(a, i, n);
		for (int j = i + 1; j < n; j++)
			s -= A(a, i, j) * x[j];
		x[i] = s / A(a, i, i);
	}
	double err = 0, res = 0;
	for (int i = 0; i < n; i++) {
		double e = fabs_(x[i] - (1.0 + i % 7));
		if (e > err)
			err = e;
		double s = -A(a0, i, n);
		for (int j = 0; j < n; j++)
			s += A(a0, i, j) * x[j];
		if (fabs_(s) > res)
			res = fabs_(s);
	}
	int ok = err < 1e-9 && res < 1e-9 * n;

	char name[48];
	snprintf(name, sizeof name, "gauss.%s", P->name);
	struct result rr;
	result_begin(&rr, name);
	result_str(&rr, "package", P->name);
	result_int(&rr, "n", n);
	result_int(&rr, "threads", nthreads);
	result_int(&rr, "vps", nvps);
	result_int(&rr, "reps", reps);
	result_double(&rr, "seconds", total / 1e9);
	result_int(&rr, "ok", ok);
	result_double(&rr, "err", err);
	result_double(&rr, "residual", res);
	result_int(&rr, "ncpu", sys_getinfo(INFO_NCPU));
	result_end(&rr);
	return (void *)(intptr_t)(ok ? 0 : 1);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		printf("usage: gauss PKG N THREADS VPS [REPS]\n");
		return 2;
	}
	P = app_pkg(argv[1]);
	n = atoi(argv[2]);
	nthreads = atoi(argv[3]);
	nvps = atoi(argv[4]);
	reps = argc > 5 ? atoi(argv[5]) : 1;
	if (n < 2 || nthreads < 1 || nvps < 1 || reps < 1) {
		printf("gauss: bad arguments\n");
		return 2;
	}
	a0 = malloc(sizeof *a0 * (size_t)n * (size_t)(n + 1));
	a = malloc(sizeof *a * (size_t)n * (size_t)(n + 1));
	if (!a0 || !a) {
		printf("gauss: out of memory\n");
		return 1;
	}
	/* Off-diagonal entries in [-1, 1), diagonal n + 1: strictly
	   diagonally dominant, so elimination without pivoting is stable. */
	uint64_t seed = 12345;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++)
			A(a0, i, j) = i == j ? n + 1.0
				: (double)(int64_t)(rand64(&seed) >> 11) / (double)(1ULL << 52) - 1.0;
	}
	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int j = 0; j < n; j++)
			s += A(a0, i, j) * (1.0 + j % 7);
		A(a0, i, n) = s;
	}
	P->run(nvps, main_fn, 0);
}
