/*
 * strtod: decimal and hexadecimal floating-point numbers, inf and nan.
 *
 * Decimal: up to 19 significant digits are kept in a 64-bit integer m
 * (later digits only decide rounding direction: they set a sticky bit),
 * and the value is m * 10^e. When m < 2^53 and |e| <= 22 both factors
 * are exact doubles and one multiplication or division rounds correctly
 * (Clinger's fast path), which covers what programs usually parse.
 * Otherwise the product is formed in x87 long double (64-bit mantissa)
 * and rounded once to double: within one ulp, and nearly always the
 * correctly rounded result. Hexadecimal input is exact (to 16 digits).
 */
#include <stdlib.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <stdint.h>

static const double exact10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
				  1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
				  1e20, 1e21, 1e22 };

/* 10^e for |e| up to a few thousand, by squaring (long double reaches 1e4932). */
static long double tenpow(int e)
{
	long double r = 1, b = 10;
	unsigned n = e < 0 ? -(unsigned)e : (unsigned)e;
	for (; n; n >>= 1, b *= b)
		if (n & 1)
			r *= b;
	return e < 0 ? 1 / r : r;
}

static long double twopow(int e)
{
	long double r = 1, b = 2;
	unsigned n = e < 0 ? -(unsigned)e : (unsigned)e;
	for (; n; n >>= 1, b *= b)
		if (n & 1)
			r *= b;
	return e < 0 ? 1 / r : r;
}

static int match(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)s[i]) != word[i])
			return 0;
	return 1;
}

/* The exponent after 'e' or 'p' at *s, if well formed (else 0, s unmoved). */
static long exponent(const char **sp)
{
	const char *s = *sp + 1;
	int neg = *s == '-';
	if (*s == '+' || *s == '-')
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	long e = 0;
	for (; isdigit((unsigned char)*s); s++)
		if (e < 100000)
			e = e * 10 + (*s - '0');
	*sp = s;
	return neg ? -e : e;
}

static double finish(long double v, int neg)
{
	double d = (double)v;
	if (d == __builtin_inf() || (d == 0 && v != 0) || (v != 0 && __builtin_fabs(d) < 2.2250738585072014e-308))
		errno = ERANGE;
	return neg ? -d : d;
}

double strtod(const char *str, char **end)
{
	const char *s = str;
	while (isspace((unsigned char)*s))
		s++;
	int neg = *s == '-';
	if (*s == '+' || *s == '-')
		s++;
	if (match(s, "inf")) {
		s += match(s, "infinity") ? 8 : 3;
		if (end)
			*end = (char *)s;
		return neg ? -__builtin_inf() : __builtin_inf();
	}
	if (match(s, "nan")) {
		s += 3;
		if (*s == '(') {
			const char *p = s + 1;
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			if (*p == ')')
				s = p + 1;
		}
		if (end)
			*end = (char *)s;
		return neg ? -__builtin_nan("") : __builtin_nan("");
	}
	int hex = s[0] == '0' && (s[1] | 0x20) == 'x' &&
		  (isxdigit((unsigned char)s[2]) || (s[2] == '.' && isxdigit((unsigned char)s[3])));
	if (hex)
		s += 2;
	uint64_t m = 0;
	long e = 0;          /* decimal (or binary, for hex) exponent of m */
	int digits = 0, any = 0, sticky = 0, dot = 0;
	for (;; s++) {
		int c = (unsigned char)*s, d;
		if (c == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (hex ? !isxdigit(c) : !isdigit(c))
			break;
		d = isdigit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
		any = 1;
		if (m == 0 && d == 0) {        /* leading zeros count for nothing */
			if (dot)
				e -= hex ? 4 : 1;
			continue;
		}
		if (digits < (hex ? 16 : 19)) {
			m = m * (hex ? 16 : 10) + (uint64_t)d;
			digits++;
			if (dot)
				e -= hex ? 4 : 1;
		} else {
			sticky |= d != 0;
			if (!dot)
				e += hex ? 4 : 1;
		}
	}
	if (!any) {
		if (end)
			*end = (char *)str;
		return 0;
	}
	if ((*s | 0x20) == (hex ? 'p' : 'e'))
		e += exponent(&s);
	if (end)
		*end = (char *)s;
	if (m == 0)
		return neg ? -0.0 : 0.0;
	if (hex)
		return finish((long double)m * twopow((int)e), neg);
	/* A dropped nonzero digit: nudge m so the rounding sees "above". */
	if (sticky)
		m |= 1;
	if (m < (1ULL << 53) && e >= -22 && e <= 22) {
		double d = (double)m;
		d = e < 0 ? d / exact10[-e] : d * exact10[e];
		return neg ? -d : d;
	}
	if (e > 400)
		e = 400;          /* inf anyway; keeps tenpow finite */
	if (e < -400 - 19)
		e = -400 - 19;    /* 0 anyway */
	long double v = (long double)m;
	/* Split very small scales so the long double intermediate stays normal. */
	if (e < -300)
		v = v * tenpow(-300) * tenpow((int)e + 300);
	else
		v *= tenpow((int)e);
	return finish(v, neg);
}

float strtof(const char *s, char **end)
{
	double d = strtod(s, end);
	float f = (float)d;
	if ((f == __builtin_inff() && d != __builtin_inf()) || (f == 0 && d != 0))
		errno = ERANGE;
	return f;
}

long double strtold(const char *s, char **end)
{
	return strtod(s, end);
}
