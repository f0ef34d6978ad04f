/* Small <stdlib.h> and <inttypes.h> functions: div, atof, atoll, intmax. */
#include <stdlib.h>
#include <inttypes.h>
#include <errno.h>

div_t div(int a, int b) { return (div_t){ a / b, a % b }; }
ldiv_t ldiv(long a, long b) { return (ldiv_t){ a / b, a % b }; }
lldiv_t lldiv(long long a, long long b) { return (lldiv_t){ a / b, a % b }; }
imaxdiv_t imaxdiv(intmax_t a, intmax_t b) { return (imaxdiv_t){ a / b, a % b }; }
intmax_t imaxabs(intmax_t x) { return x < 0 ? -x : x; }
long long atoll(const char *s) { return strtoll(s, 0, 10); }
double atof(const char *s) { return strtod(s, 0); }
intmax_t strtoimax(const char *s, char **end, int base) { return strtoll(s, end, base); }
uintmax_t strtoumax(const char *s, char **end, int base) { return strtoull(s, end, base); }

void *reallocarray(void *p, size_t n, size_t size)
{
	size_t bytes;
	if (__builtin_mul_overflow(n, size, &bytes)) {
		errno = ENOMEM;
		return 0;
	}
	return realloc(p, bytes);
}

/* (reallocarray and posix_memalign fence no more than realloc and
   aligned_alloc do: det=par's heap serves them without a turn.) */
int posix_memalign(void **out, size_t align, size_t n)
{
	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;     /* returned, not set in errno, as POSIX says */
	void *p = aligned_alloc(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}
