/*
 * The Gaussian-elimination kernel shared by gauss.c (Psyche's application
 * table) and speedup.c (Psyche's speedup figure). Included by one program
 * each: it defines code and data.
 *
 * An N x N system of doubles, strictly diagonally dominant (so no pivoting
 * is needed), with right side b = A x* for a known x*. The rows are dealt
 * cyclically to the threads; after each pivot step every thread waits at
 * one barrier. So with many threads per processor the run is dominated by
 * how cheaply the package blocks and wakes threads at a barrier.
 */
#ifndef PROGS_GAUSS_H
#define PROGS_GAUSS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sync.h>
#include <animart/clock.h>
#include <animalib/rng.h>
#include "apppkg.h"

static int g_n, g_threads;
static double *g_a0, *g_a;       /* n rows of n+1 (the last column is b) */
static struct barrier g_bar;

#define GA(m, i, j) ((m)[(size_t)(i) * (size_t)(g_n + 1) + (size_t)(j)])

/* Allocate and fill the system; 0 if out of memory. */
static int gauss_setup(int n)
{
	g_n = n;
	size_t cells = (size_t)n * (size_t)(n + 1);
	g_a0 = malloc(sizeof *g_a0 * cells);
	g_a = malloc(sizeof *g_a * cells);
	if (!g_a0 || !g_a)
		return 0;
	/* Off-diagonal entries in [-1, 1), diagonal n + 1. */
	uint64_t seed = 12345;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			GA(g_a0, i, j) = i == j ? n + 1.0
				: (double)(int64_t)(rand64(&seed) >> 11) / (double)(1ULL << 52) - 1.0;
	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int j = 0; j < n; j++)
			s += GA(g_a0, i, j) * (1.0 + j % 7);
		GA(g_a0, i, n) = s;
	}
	return 1;
}

static void *gauss_worker(void *arg)
{
	int me = (int)(intptr_t)arg, n = g_n, nt = g_threads;
	for (int k = 0; k < n - 1; k++) {
		const double *pk = &GA(g_a, k, 0);
		double inv = 1.0 / pk[k];
		int i = k + 1 + ((me - (k + 1)) % nt + nt) % nt;   /* first owned row below k */
		for (; i < n; i += nt) {
			double *pi = &GA(g_a, i, 0);
			double f = pi[k] * inv;
			pi[k] = 0.0;
			for (int j = k + 1; j <= n; j++)
				pi[j] -= f * pk[j];
		}
		ubarrier_wait(&g_bar);
	}
	return 0;
}

/* One elimination of a fresh copy of A by `threads` threads of package p
   (created, run and joined); returns the ns it took. */
static uint64_t gauss_eliminate(const struct pkg *p, int threads, struct thread **t)
{
	g_threads = threads;
	memcpy(g_a, g_a0, sizeof *g_a * (size_t)g_n * (size_t)(g_n + 1));
	ubarrier_init(&g_bar, threads);
	uint64_t t0 = now_ns();
	app_fork_join(p, threads, gauss_worker, t);
	return now_ns() - t0;
}

static double gauss_fabs(double x)
{
	return x < 0 ? -x : x;
}

/* Back-substitute the eliminated system and compare with x* = 1 + i % 7:
   the largest error, and the largest residual |A x - b| against the
   original system. Returns 1 if both are tiny. */
static int gauss_check(double *err_out, double *res_out)
{
	int n = g_n;
	double *x = malloc(sizeof *x * (size_t)n);
	*err_out = *res_out = -1;
	if (!x)
		return 0;
	for (int i = n - 1; i >= 0; i--) {
		double s = GA(g_a, i, n);
		for (int j = i + 1; j < n; j++)
			s -= GA(g_a, i, j) * x[j];
		x[i] = s / GA(g_a, i, i);
	}
	double err = 0, res = 0;
	for (int i = 0; i < n; i++) {
		double e = gauss_fabs(x[i] - (1.0 + i % 7));
		if (e > err)
			err = e;
		double s = -GA(g_a0, i, n);
		for (int j = 0; j < n; j++)
			s += GA(g_a0, i, j) * x[j];
		if (gauss_fabs(s) > res)
			res = gauss_fabs(s);
	}
	free(x);
	*err_out = err;
	*res_out = res;
	return err < 1e-9 && res < 1e-9 * n;
}

#endif
