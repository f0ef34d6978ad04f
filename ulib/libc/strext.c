/*
 * The rest of <string.h> and <strings.h>, user side only (string.c is
 * shared with the kernel). Every function here is weak: ported programs
 * often bring their own strdup or strcasecmp, and theirs must win rather
 * than collide with ours.
 */
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include <ctype.h>

#define W __attribute__((weak))

W void *memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	while (n--)
		if (p[n] == (unsigned char)c)
			return (void *)(p + n);
	return 0;
}

W void *memccpy(void *dst, const void *src, int c, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	for (size_t i = 0; i < n; i++)
		if ((d[i] = s[i]) == (unsigned char)c)
			return d + i + 1;
	return 0;
}

W void *memmem(const void *h, size_t hn, const void *n, size_t nn)
{
	if (nn == 0)
		return (void *)h;
	for (const char *p = h; hn >= nn; p++, hn--)
		if (*p == *(const char *)n && !memcmp(p, n, nn))
			return (void *)p;
	return 0;
}

W int strcoll(const char *a, const char *b)
{
	return strcmp(a, b);
}

W size_t strxfrm(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);
	if (len < n)
		memcpy(dst, src, len + 1);
	return len;
}

W void *mempcpy(void *dst, const void *src, size_t n)
{
	return (char *)memcpy(dst, src, n) + n;
}

W void *rawmemchr(const void *s, int c)
{
	const unsigned char *p = s;
	while (*p != (unsigned char)c)
		p++;
	return (void *)p;
}

/* The asm tells the compiler the zeroed memory is read afterwards, so a
   clearing of a secret before free is never dropped as a dead store. */
W void explicit_bzero(void *s, size_t n)
{
	memset(s, 0, n);
	__asm__ volatile("" : : "r"(s) : "memory");
}

W char *strchrnul(const char *s, int c)
{
	while (*s && *s != (char)c)
		s++;
	return (char *)s;
}

W char *stpcpy(char *dst, const char *src)
{
	size_t n = strlen(src);
	memcpy(dst, src, n + 1);
	return dst + n;
}

W char *stpncpy(char *dst, const char *src, size_t n)
{
	size_t len = strnlen(src, n);
	memcpy(dst, src, len);
	memset(dst + len, 0, n - len);
	return dst + len;
}

W size_t strlcat(char *dst, const char *src, size_t n)
{
	size_t d = strnlen(dst, n);
	if (d == n)
		return n + strlen(src);
	return d + strlcpy(dst + d, src, n - d);
}

W char *strncat(char *dst, const char *src, size_t n)
{
	char *d = dst + strlen(dst);
	size_t len = strnlen(src, n);
	memcpy(d, src, len);
	d[len] = 0;
	return dst;
}

W int strcasecmp(const char *a, const char *b)
{
	int d;
	while ((d = tolower((unsigned char)*a) - tolower((unsigned char)*b)) == 0 && *a)
		a++, b++;
	return d;
}

W int strncasecmp(const char *a, const char *b, size_t n)
{
	int d = 0;
	while (n-- && (d = tolower((unsigned char)*a) - tolower((unsigned char)*b)) == 0 && *a)
		a++, b++;
	return d;
}

W char *strcasestr(const char *h, const char *n)
{
	size_t len = strlen(n);
	for (; *h; h++)
		if (!strncasecmp(h, n, len))
			return (char *)h;
	return len ? 0 : (char *)h;
}

W size_t strspn(const char *s, const char *accept)
{
	size_t n = 0;
	while (s[n] && strchr(accept, s[n]))
		n++;
	return n;
}

W size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;
	while (s[n] && !strchr(reject, s[n]))
		n++;
	return n;
}

W char *strpbrk(const char *s, const char *accept)
{
	s += strcspn(s, accept);
	return *s ? (char *)s : 0;
}

W char *strtok_r(char *s, const char *delim, char **save)
{
	if (!s)
		s = *save;
	s += strspn(s, delim);
	if (!*s) {
		*save = s;
		return 0;
	}
	char *end = s + strcspn(s, delim);
	if (*end)
		*end++ = 0;
	*save = end;
	return s;
}

W char *strtok(char *s, const char *delim)
{
	static char *save;
	return strtok_r(s, delim, &save);
}

W char *strsep(char **sp, const char *delim)
{
	char *s = *sp;
	if (!s)
		return 0;
	char *end = s + strcspn(s, delim);
	*sp = *end ? end + 1 : 0;
	*end = 0;
	return s;
}

W char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	return d ? memcpy(d, s, n) : 0;
}

W char *strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = malloc(len + 1);
	if (!d)
		return 0;
	memcpy(d, s, len);
	d[len] = 0;
	return d;
}

W int ffs(int x) { return __builtin_ffs(x); }
W int ffsl(long x) { return __builtin_ffsl(x); }
W int ffsll(long long x) { return __builtin_ffsll(x); }
W void bzero(void *p, size_t n) { memset(p, 0, n); }
W void bcopy(const void *src, void *dst, size_t n) { memmove(dst, src, n); }
W int bcmp(const void *a, const void *b, size_t n) { return memcmp(a, b, n); }
W char *index(const char *s, int c) { return strchr(s, c); }
W char *rindex(const char *s, int c) { return strrchr(s, c); }
