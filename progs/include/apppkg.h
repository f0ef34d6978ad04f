/*
 * Shared bits of the experiment applications (gauss, psort, speedup, mpl,
 * scale, barlat, wakelat, wakerace): check the argument count, pick a thread
 * package by name (argv[1]), read a VP count, and report failures uniformly.
 *
 * Every package of the build is there: the Makefile lists the folders of
 * threadpkgs/ in pkg_all[] (<animart/pkg.h>).
 */
#ifndef PROGS_APPPKG_H
#define PROGS_APPPKG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/pkg.h>
#include <animart/seg.h>
#include <errno.h>
#include <animalib/result.h>

extern int det_par __attribute__((weak));   /* threadpkgs/det/par.c */

/* The package called `name` (any folder of threadpkgs/: pkg_all[]);
   exits with status 2 if there is none. "det=par" is det with its
   parallel phase (as pstart.c's `det=par`). */
static inline const struct pkg *app_pkg(const char *name)
{
	if (!strcmp(name, "det=par") && &det_par) {
		det_par = 1;
		name = "det";
	}
	const struct pkg *p = pkg_find(name);
	if (p)
		return p;
	printf("unknown thread package '%s' (have:", name);
	for (const struct pkg *const *q = pkg_all; *q; q++)
		printf(" %s", (*q)->name);
	printf(")\n");
	exit(2);
}

/* The start of every application's main(): at least `min` arguments
   (argv[0] included), or print `usage` and exit 2; then the package named
   by argv[1]. */
static inline const struct pkg *app_args(int argc, char **argv, int min, const char *usage)
{
	if (argc < min) {
		printf("usage: %s\n", usage);
		exit(2);
	}
	return app_pkg(argv[1]);
}

/* An application's @result `name` begun with what each reports: its
   package and the time it measured, in seconds (unit, value, seconds). */
static inline void app_result_begin(struct result *r, const char *name, const struct pkg *p,
				    uint64_t ns)
{
	result_begin(r, name);
	result_str(r, "package", p->name);
	result_str(r, "unit", "seconds");
	result_double(r, "value", ns / 1e9);
	result_double(r, "seconds", ns / 1e9);
}

/* A VP-count argument: a positive number as given, 0 for one VP per CPU. */
static inline int app_vps(const char *arg)
{
	int v = atoi(arg);
	return v > 0 ? v : (int)sys_getinfo(INFO_NCPU);
}

/* A new segment of len bytes mapped read-write, for the programs whose
   threads share memory through one (xself, xflood, yieldpair, workq),
   its handle in *handle (to grant a child) unless that is 0; `name` in
   the message if there is none (status 3). */
static inline void *app_seg(const char *name, uint64_t len, long *handle)
{
	long h = seg_create(len);
	if (handle)
		*handle = h;
	long a = h < 0 ? h : seg_map(h, PROT_READ | PROT_WRITE);
	if (sys_failed(a)) {
		printf("%s: segment: %s\n", name, errname((int)a));
		exit(3);
	}
	return (void *)a;
}

static inline int app_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Latencies lat[0..n) sorted in place (lat[n / 2] is the median). */
static inline void app_lat_sort(uint64_t *lat, int n)
{
	qsort(lat, (size_t)n, sizeof *lat, app_u64_cmp);
}

/* A latency benchmark's figures of sorted lat[0..n) (barlat, wakelat):
   median, 99th percentile, maximum, and how many took over 1 ms. */
static inline void app_lat_result(struct result *r, const uint64_t *lat, int n)
{
	int over = 0;
	for (int i = 0; i < n; i++)
		over += lat[i] > 1000000;
	result_uint(r, "median_ns", lat[n / 2]);
	result_uint(r, "p99_ns", lat[n * 99 / 100]);
	result_uint(r, "max_ns", lat[n - 1]);
	result_int(r, "over_1ms", over);
}

/* Create a thread or die (a benchmark that silently runs fewer threads
   would report a wrong figure). */
static inline struct thread *app_create(const struct pkg *p, void *(*fn)(void *), void *arg)
{
	struct thread *t = p->create(fn, arg, 0);
	if (!t) {
		printf("%s: cannot create a thread (out of memory or VPs)\n", p->name);
		exit(3);
	}
	return t;
}

/* Run fn((void *)i) for i < n in n threads of p (descriptors in t) and
   join them all. */
static inline void app_fork_join(const struct pkg *p, int n, void *(*fn)(void *), struct thread **t)
{
	for (int i = 0; i < n; i++)
		t[i] = app_create(p, fn, (void *)(intptr_t)i);
	for (int i = 0; i < n; i++)
		thread_join(t[i]);
}

#endif
