/*
 * Numbers from wide strings (<wchar.h>): wcstol, wcstoul, wcstoll,
 * wcstoull, wcstod, wcstof. In the C locale a number is ASCII, so the
 * longest prefix that could be part of one (spaces, then letters,
 * digits, signs, '.', and the parentheses of nan(...)) is copied to a
 * byte string, the strto* function reads it, and its end maps back one
 * byte per wide character.
 */
#include <wchar.h>
#include <stdlib.h>
#include <string.h>

#define ONSTACK 128

/* The narrow copy of s's possible number: in b (cap bytes) or malloc'd. */
static char *narrow(const wchar_t *s, char *b, size_t cap)
{
	size_t n = 0;
	while (s[n] == ' ' || (s[n] >= '\t' && s[n] <= '\r'))
		n++;
	for (;; n++) {
		wchar_t c = s[n];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      c == '+' || c == '-' || c == '.' || c == '(' || c == ')' || c == '_'))
			break;
	}
	char *d = n < cap ? b : malloc(n + 1);
	if (!d) {                       /* no memory: the first cap - 1 only */
		d = b;
		n = cap - 1;
	}
	for (size_t i = 0; i < n; i++)
		d[i] = (char)s[i];
	d[n] = 0;
	return d;
}

static void done(char *d, char *b, const char *e, const wchar_t *s, wchar_t **end)
{
	if (end)
		*end = (wchar_t *)s + (e - d);
	if (d != b)
		free(d);
}

#define WIDE(name, type, call)                                           \
	type name(const wchar_t *s, wchar_t **end, int base)              \
	{                                                                 \
		char b[ONSTACK], *e, *d = narrow(s, b, sizeof b);         \
		type v = call(d, &e, base);                               \
		done(d, b, e, s, end);                                    \
		return v;                                                 \
	}

WIDE(wcstol, long, strtol)
WIDE(wcstoul, unsigned long, strtoul)
WIDE(wcstoll, long long, strtoll)
WIDE(wcstoull, unsigned long long, strtoull)

double wcstod(const wchar_t *s, wchar_t **end)
{
	char b[ONSTACK], *e, *d = narrow(s, b, sizeof b);
	double v = strtod(d, &e);
	done(d, b, e, s, end);
	return v;
}

float wcstof(const wchar_t *s, wchar_t **end)
{
	char b[ONSTACK], *e, *d = narrow(s, b, sizeof b);
	float v = strtof(d, &e);
	done(d, b, e, s, end);
	return v;
}
