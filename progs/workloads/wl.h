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
 * from a fixed seed; the programs that read an input in the published
 * suites (histogram: a 24-bit BMP; linreg: (x, y) byte pairs; wordcount,
 * strmatch: text; dedup: any bytes) also take -i FILE to read it from a
 * file instead, checked then against a sequential pass over it, and
 * -o FILE to write the generated one there. Only the parallel part is
 * timed; the program then
 * checks its answer and prints one line
 *   @result {"name": "workload.NAME.SYSTEM", "workload": NAME,
 *            "package": SYSTEM, "threads": T, "unit": "ns", "value": NS,
 *            "ns": NS, "check": "ok" or "FAILED", ...}
 * (SYSTEM: the Anima package, or "linux"), and exits 0 iff the check held.
 */
#ifndef WL_H
#define WL_H
#include <errno.h>
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

#ifndef WL_INPUT
#define WL_INPUT 0                    /* 1: the program takes -i and -o */
#endif
static const char *wl_in, *wl_out;   /* -i FILE: read the input; -o FILE: write it */

/* [-i FILE] [-o FILE] THREADS SCALE from argv, bounded. */
static inline void wl_args(int argc, char **argv, int *threads, int *scale)
{
	char *pos[2] = { 0, 0 };
	int npos = 0, bad = 0;
	for (int i = 1; i < argc; i++) {
		if (WL_INPUT && (!strcmp(argv[i], "-i") || !strcmp(argv[i], "-o")) && i + 1 < argc)
			*(argv[i][1] == 'i' ? &wl_in : &wl_out) = argv[i + 1], i++;
		else if (argv[i][0] == '-' || npos == 2)
			bad = 1;
		else
			pos[npos++] = argv[i];
	}
	*threads = pos[0] ? atoi(pos[0]) : 4;
	*scale = wl_scale = pos[1] ? atoi(pos[1]) : 1;
	if (bad || *threads < 1 || *threads > WL_MAXT || *scale < 1 || *scale > 64) {
		printf("usage: %s %s[THREADS 1..%d [SCALE 1..64]]\n", argv[0],
		       WL_INPUT ? "[-i INPUT | -o INPUT] " : "", WL_MAXT);
		exit(2);
	}
}

/* The whole of the -i file, malloc'd (its length in *len), or 0 without
   -i. A file that cannot be read ends the program with the reason. */
static inline unsigned char *wl_load(size_t *len)
{
	if (!wl_in)
		return 0;
	FILE *f = fopen(wl_in, "rb");
	long n = -1;
	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	unsigned char *b = n >= 0 ? malloc((size_t)n + 1) : 0;
	if (!f || n < 0 || !b || fseek(f, 0, SEEK_SET) || fread(b, 1, (size_t)n, f) != (size_t)n) {
		printf("workload: cannot read %s: %s\n", wl_in, strerror(errno));
		exit(3);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* With -o, the generated input (the head then the body) to that file,
   in the format -i reads. */
static inline void wl_save(const void *head, size_t hlen, const void *body, size_t blen)
{
	if (!wl_out)
		return;
	FILE *f = fopen(wl_out, "wb");
	if (!f || fwrite(head, 1, hlen, f) != hlen || fwrite(body, 1, blen, f) != blen ||
	    fclose(f)) {
		printf("workload: cannot write %s: %s\n", wl_out, strerror(errno));
		exit(3);
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
