/* General utilities: exit, numbers from strings, sorting, rand, malloc.
   How each differs from POSIX: docs/libc.md. */
#ifndef ULIB_STDLIB_H
#define ULIB_STDLIB_H

#include <stddef.h>
#include <alloca.h>
#include <stdint.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX     0x7fffffff
#define MB_CUR_MAX   1

typedef struct { int quot, rem; } div_t;
typedef struct { long quot, rem; } ldiv_t;
typedef struct { long long quot, rem; } lldiv_t;

/* exit runs the atexit functions (last registered first, at most
   ATEXIT_MAX = 32), flushes stdout and ends the program (every thread). */
__attribute__((noreturn)) void exit(int status);
__attribute__((noreturn)) void _Exit(int status);   /* no atexit, no flush */
__attribute__((noreturn)) void abort(void);         /* prints "abort", exits 134 */
int atexit(void (*fn)(void));
/* C11: at most ATEXIT_MAX; quick_exit runs them (last first), then _Exit */
int at_quick_exit(void (*fn)(void));
__attribute__((noreturn)) void quick_exit(int status);

int atoi(const char *s);
long atol(const char *s);
long long atoll(const char *s);
double atof(const char *s);
/* Standard semantics: leading space, sign, base 0 (0x.. hex, 0.. octal,
 * else decimal) or 2..36 with an optional 0x for 16; *end gets the first
 * unparsed char (s itself if there were no digits); out-of-range values
 * clamp and set errno = ERANGE. */
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
long long strtoll(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);
/* Decimal and hex floats, inf, nan; rounded to nearest (see docs/libc.md). */
double strtod(const char *s, char **end);
float strtof(const char *s, char **end);
long double strtold(const char *s, char **end);

int abs(int x);
long labs(long x);
long long llabs(long long x);
div_t div(int a, int b);
ldiv_t ldiv(long a, long b);
lldiv_t lldiv(long long a, long long b);

/* Introsort: O(n log n) worst case; not stable. */
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* GNU's argument order: ctx is the comparison's third argument. */
void qsort_r(void *base, size_t n, size_t size,
	     int (*cmp)(const void *, const void *, void *), void *ctx);
void *bsearch(const void *key, const void *base, size_t n, size_t size,
	      int (*cmp)(const void *, const void *));

/* Deterministic pseudo-random numbers, glibc's sequences (ulib/rand.c):
 * rand's one shared state is taken under a lock, so threads may share
 * it; rand_r's and random_r's are the caller's. */
int rand(void);
void srand(unsigned seed);
int rand_r(unsigned *seed);
long random(void);
void srandom(unsigned seed);
char *initstate(unsigned seed, char *state, size_t n);
char *setstate(char *state);
struct random_data {
	int32_t *fptr, *rptr, *state;
	int rand_type, rand_deg, rand_sep;
	int32_t *end_ptr;
};
int random_r(struct random_data *buf, int32_t *result);
int srandom_r(unsigned seed, struct random_data *buf);
int initstate_r(unsigned seed, char *state, size_t n, struct random_data *buf);
int setstate_r(char *state, struct random_data *buf);
/* The 48-bit linear congruential generators (ulib/rand48.c): POSIX's and
   glibc's exact sequences (X' = a X + c mod 2^48, a = 0x5DEECE66D, c = 11
   unless lcong48 changed them). */
double drand48(void);
double erand48(unsigned short xsubi[3]);
long lrand48(void);
long nrand48(unsigned short xsubi[3]);
long mrand48(void);
long jrand48(unsigned short xsubi[3]);
void srand48(long seedval);
unsigned short *seed48(unsigned short seed16v[3]);
void lcong48(unsigned short param[7]);

/* Thread-safe allocator (size classes over sys_map, per-VP caches in
 * front of central lists; see malloc.c). Every block is 16-byte aligned. */
void *malloc(size_t n);
void free(void *p);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void *reallocarray(void *p, size_t n, size_t size);
void *aligned_alloc(size_t align, size_t n);   /* align: a power of two */
int posix_memalign(void **out, size_t align, size_t n);
/* Obsolete aligned allocators (ulib/memalign.c), freed with free:
   memalign = aligned_alloc; valloc aligns to the page; pvalloc also
   rounds n up to whole pages. */
void *memalign(size_t align, size_t n);
void *valloc(size_t n);
void *pvalloc(size_t n);

/* The environment (ulib/libc/environ.c): `environ` in <unistd.h>;
   clearenv and secure_getenv are glibc's (secure_getenv = getenv: no
   set-user-ID programs). */
char *getenv(const char *name);
char *secure_getenv(const char *name);
int setenv(const char *name, const char *value, int overwrite);
int unsetenv(const char *name);
int putenv(char *s);
int clearenv(void);
int system(const char *cmd);
/* Temporary files on the disk (ulib/libc/tmpfile.c): the template's last
   6 characters ("XXXXXX", before `suffix` more) made unique; 0600 files,
   0700 directories; EROFS without a disk. */
int mkstemp(char *t);
int mkostemp(char *t, int flags);
int mkstemps(char *t, int suffix);
int mkostemps(char *t, int suffix, int flags);
char *mkdtemp(char *t);
/* The absolute path of an existing file, "." and ".." removed (ulib/libc/cwd.c). */
char *realpath(const char *path, char *resolved);

/* GNU's: fn(status, arg) at exit, in one list with atexit's functions. */
int on_exit(void (*fn)(int status, void *arg), void *arg);                  /* -1, ENOSYS: no shell */

#endif
