/*
 * String and memory functions. Shared: the kernel builds this same file
 * (it has no other libc), so it must not call anything outside itself.
 */
#include <stdint.h>
#include <animacom/string.h>

/*
 * memcpy/memset move 8 bytes per step (rep movsq/stosq) and finish the
 * tail bytewise. QEMU counts every iteration of a rep-string instruction
 * as one guest instruction (and emulates it step by step), so the byte
 * forms would cost one "instruction" per byte in icount measurements.
 */
void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;
	size_t q = n / 8, r = n % 8;
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(src), "+c"(q) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(r) : : "memory");
	return dst;
}

/*
 * An overlap with dst above src copies from the top down: the tail
 * bytes first, then 8 bytes a step with the direction flag set (as
 * memcpy's, one counted instruction per step, not per byte). The flag
 * is set only inside the one asm statement: every way into other code
 * while it is set clears it there (the kernel's entries, kernel/vectors.S
 * and syscall.S, with cld; a user upcall or interrupt entry starts with
 * rflags IF alone, kernel/upcall.c and intr.c), and the way back
 * restores it with the rest of rflags (iretq, or popfq in ulib/rt).
 */
void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	for (size_t r = n % 8; r; r--) {
		n--;
		d[n] = s[n];
	}
	size_t q = n / 8;
	if (q) {
		void *dq = d + n - 8;
		const void *sq = s + n - 8;
		__asm__ volatile("std; rep movsq; cld" : "+D"(dq), "+S"(sq), "+c"(q) : : "memory", "cc");
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;
	size_t q = n / 8, r = n % 8;
	uint64_t v = (uint8_t)c * 0x0101010101010101UL;
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(v) : "memory");
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(r) : "a"(v) : "memory");
	return dst;
}

/* Unaligned loads the compiler may not assume aligned or unaliased (x86
   loads from any address). */
typedef uint64_t __attribute__((may_alias, aligned(1))) word_u;
typedef uint32_t __attribute__((may_alias, aligned(1))) half_u;

/* The first byte that differs in two little-endian words read at a and
   b: the lowest set byte of their xor. */
static int first_diff(const unsigned char *a, const unsigned char *b, uint64_t d)
{
	size_t k = (size_t)__builtin_ctzll(d) / 8;
	return a[k] - b[k];
}

/*
 * Eight bytes a step, the last step overlapping the one before when n is
 * not a multiple of 8 (the bytes before it are equal, so its first
 * difference is the first), and four for short keys: programs compare
 * keys with it (a word count's table compares per probe; the byte loop
 * cost it 7% against glibc's, words being about 11 bytes long).
 */
int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	if (n >= 8) {
		for (size_t i = 0;; i += 8) {
			if (i > n - 8)
				i = n - 8;          /* the last, overlapping word */
			uint64_t d = *(const word_u *)(x + i) ^ *(const word_u *)(y + i);
			if (d)
				return first_diff(x + i, y + i, d);
			if (i == n - 8)
				return 0;
		}
	}
	if (n >= 4) {
		uint64_t d = *(const half_u *)x ^ *(const half_u *)y;
		if (d)
			return first_diff(x, y, d);
		d = *(const half_u *)(x + n - 4) ^ *(const half_u *)(y + n - 4);
		return d ? first_diff(x + n - 4, y + n - 4, d) : 0;
	}
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] - y[i];
	return 0;
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	for (size_t i = 0; i < n; i++)
		if (p[i] == (unsigned char)c)
			return (void *)(p + i);
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++)
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return 0;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = 0;
	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

char *strcpy(char *dst, const char *src)
{
	char *d = dst;
	while ((*d++ = *src++))
		;
	return dst;
}

char *strncpy(char *dst, const char *src, size_t n)
{
	size_t i = 0;
	for (; i < n && src[i]; i++)
		dst[i] = src[i];
	for (; i < n; i++)
		dst[i] = 0;
	return dst;
}

/* Weak: ported programs often carry their own strlcpy. */
__attribute__((weak)) size_t strlcpy(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);
	if (n) {
		size_t c = len < n - 1 ? len : n - 1;
		memcpy(dst, src, c);
		dst[c] = 0;
	}
	return len;
}

char *strcat(char *dst, const char *src)
{
	strcpy(dst + strlen(dst), src);
	return dst;
}

char *strstr(const char *h, const char *n)
{
	size_t ln = strlen(n);
	for (; *h; h++)
		if (!strncmp(h, n, ln))
			return (char *)h;
	return ln ? 0 : (char *)h;
}
