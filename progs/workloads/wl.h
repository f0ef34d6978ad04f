/*
 * wl.h: what the workload programs (progs/workloads/, Phoenix- and
 * PARSEC-style, our own code) share. Each is an ordinary pthread program
 * built twice: by the Makefile against Anima's libc (-DWL_ANIMA, run on
 * the package named by pkg=) and by harness/linux.py against glibc
 * (gcc -O2 -static -pthread, run on Linux's NPTL). So only standard
 * calls here, and the program times itself with clock_gettime: under
 * -icount a nanosecond of guest time is one guest instruction on both.
 *
 * Usage of every workload: NAME [THREADS [SCALE]]: THREADS workers
 * (default 4), SCALE multiplies the input (default 1). The input comes
 * from a fixed seed; only the parallel part is timed; the program then
 * checks its answer and prints one line
 *   @result {"name": "workload.NAME.SYSTEM", "workload": NAME,
 *            "package": SYSTEM, "threads": T, "unit": "ns", "value": NS,
 *            "ns": NS, "check": "ok" or "FAILED", ...}
 * (SYSTEM: the Anima package, or "linux"), and exits 0 iff the check held.
 */
#ifndef WL_H
#define WL_H
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef WL_ANIMA
#include <animart/pkg.h>
extern const struct pkg *posix_pkg;
#define WL_SYSTEM (posix_pkg->name)
#else
#define WL_SYSTEM "linux"
#endif

#define WL_MAXT 64

static int wl_scale = 1;              /* SCALE, for the result line */

static inline uint64_t wl_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: the inputs' generator, the same numbers on both systems. */
static inline uint64_t wl_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void *wl_alloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		printf("workload: out of memory (%zu bytes)\n", n);
		exit(3);
	}
	return p;
}

/* THREADS and SCALE from argv, bounded. */
static inline void wl_args(int argc, char **argv, int *threads, int *scale)
{
	*threads = argc > 1 ? atoi(argv[1]) : 4;
	*scale = wl_scale = argc > 2 ? atoi(argv[2]) : 1;
	if (*threads < 1 || *threads > WL_MAXT || *scale < 1 || *scale > 64) {
		printf("usage: %s [THREADS 1..%d [SCALE 1..64]]\n", argv[0], WL_MAXT);
		exit(2);
	}
}

/* Run fn(0..n-1) on n threads and join them all. */
static inline void wl_par(int n, void *(*fn)(void *))
{
	pthread_t t[WL_MAXT];
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], 0, fn, (void *)i)) {
			printf("workload: pthread_create failed\n");
			exit(3);
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], 0);
}

/* [lo, hi) of part i of n parts of len. */
static inline void wl_part(size_t len, long i, int n, size_t *lo, size_t *hi)
{
	*lo = len * (size_t)i / (size_t)n;
	*hi = len * (size_t)(i + 1) / (size_t)n;
}

/* The result line (extra: more JSON fields, "" or starting ", "); the
 * program's exit status. */
static inline int wl_report(const char *name, int threads, uint64_t ns, int ok,
			    const char *extra)
{
	printf("@result {\"name\": \"workload.%s.%s\", \"workload\": \"%s\", \"package\": \"%s\", "
	       "\"threads\": %d, \"scale\": %d, \"unit\": \"ns\", \"value\": %llu, \"ns\": %llu, "
	       "\"check\": \"%s\"%s}\n", name, WL_SYSTEM, name, WL_SYSTEM, threads, wl_scale,
	       (unsigned long long)ns, (unsigned long long)ns, ok ? "ok" : "FAILED", extra);
	fflush(stdout);
	return ok ? 0 : 1;
}
#endif
