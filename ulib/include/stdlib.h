/* General utilities: exit, numbers from strings, sorting, rand, malloc. */
#ifndef ULIB_STDLIB_H
#define ULIB_STDLIB_H

#include <stddef.h>
#include <stdint.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define EXIT_ABORT   134           /* abort(): as a shell reports SIGABRT */
#define RAND_MAX     0x7fffffff

__attribute__((noreturn)) void exit(int status);   /* flushes stdout */
__attribute__((noreturn)) void abort(void);        /* prints "abort", exits 134 */

extern int prog_argc;                /* main's argc and argv, for any code */
extern char **prog_argv;

int atoi(const char *s);
long atol(const char *s);
/* Standard semantics: leading space, sign, base 0 (0x.. hex, 0.. octal,
 * else decimal) or 2..36 with an optional 0x for 16; *end gets the first
 * unparsed char (s itself if there were no digits); out-of-range values
 * clamp and set errno = ERANGE. */
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
long long strtoll(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);

int abs(int x);
long labs(long x);
long long llabs(long long x);

/* Introsort: O(n log n) worst case; not stable. */
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void *bsearch(const void *key, const void *base, size_t n, size_t size,
	      int (*cmp)(const void *, const void *));

/* Deterministic pseudo-random numbers (one shared state; not thread-safe:
 * threads should use rand64() from <rng.h> with their own state). */
int rand(void);
void srand(unsigned seed);

/* Thread-safe allocator (size classes over sys_map, per-VP caches in
 * front of central lists; see malloc.c). Every block is 16-byte aligned. */
void *malloc(size_t n);
void free(void *p);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void *aligned_alloc(size_t align, size_t n);   /* align: a power of two */
size_t malloc_usable_size(void *p);
/* Anima: how often the per-VP caches went to the central lists (each a
 * lock round trip for a batch of blocks). Exact: kept under the locks. */
struct malloc_stats {
	uint64_t refills, drains;
};
extern struct malloc_stats malloc_stats;
extern int malloc_central_only;      /* nonzero: no caches (for comparisons) */

#endif
