/*
 * strtod: decimal and hexadecimal floating-point numbers, inf and nan,
 * correctly rounded (to nearest, ties to even).
 *
 * Decimal: the first 19 significant digits, in a 64-bit integer m, give
 * the value m * 10^e. When m < 2^53 and |e| <= 22 both factors are exact
 * doubles and one multiplication or division rounds correctly (Clinger's
 * fast path), which covers what programs usually parse. Otherwise the
 * product is formed in x87 long double (64-bit mantissa) and rounded to
 * double, which is within one ulp; then `correct` compares the exact
 * decimal value (up to MAXD digits, the rest only as "more than") with
 * the midpoints to the neighbouring doubles in big integers and steps
 * one ulp if needed. Hexadecimal input is exact to 16 digits.
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

/* --- exact comparison in big integers --- */

#define MAXD  800          /* decimal digits taken exactly; the rest only as "more than" */
#define BIG_LIMBS 128      /* 4096 bits: compare()'s sides stay near 2700 (800 digits) */
#include <animacom/big.h>

static void big_pow5(struct big *b, int k)
{
	static const uint32_t p5[] = { 1, 5, 25, 125, 625, 3125, 15625, 78125, 390625,
				       1953125, 9765625, 48828125, 244140625 };
	for (; k >= 13; k -= 13)
		big_mul(b, 1220703125u);           /* 5^13 */
	big_mul(b, p5[k]);
}

/* Compare D * 10^dexp with M * 2^bexp: -1, 0, 1. Both sides are scaled
   to integers: 10^dexp = 5^dexp * 2^dexp, a negative power moving over. */
static int compare(const struct big *D, int dexp, uint64_t M, int bexp)
{
	struct big a = *D, b;
	big_set(&b, M);
	int ax = 0, bx = bexp;
	if (dexp >= 0) {
		big_pow5(&a, dexp);
		ax = dexp;
	} else {
		big_pow5(&b, -dexp);
		bx = bexp - dexp;
	}
	int k = ax < bx ? ax : bx;
	big_shl(&a, ax - k);
	big_shl(&b, bx - k);
	return big_cmp(&a, &b);
}

/* The double nearest D * 10^dexp (plus "a little more" if sticky), given
   d within an ulp or two of it: check it against the midpoints to its
   neighbours and step. Ties go to the even mantissa. */
static double correct(double d, const struct big *D, int dexp, int sticky)
{
	uint64_t bits;
	if (d == __builtin_inf())
		d = 1.7976931348623157e308;          /* DBL_MAX: maybe the answer */
	if (d == 0)
		d = 4.9406564584124654e-324;         /* the least subnormal: maybe the answer */
	__builtin_memcpy(&bits, &d, 8);
	for (int step = 0; step < 4; step++) {
		int ex = (int)(bits >> 52);
		uint64_t mant = bits & ((1ULL << 52) - 1);
		int bexp = -1074;
		if (ex) {
			mant |= 1ULL << 52;
			bexp = ex - 1075;
		}
		int c = compare(D, dexp, 2 * mant + 1, bexp - 1);          /* upper midpoint */
		if (c > 0 || (c == 0 && (sticky || (mant & 1)))) {
			if (++bits == 0x7ffULL << 52)
				break;                                      /* up past DBL_MAX: inf */
			continue;
		}
		int wide = mant == 1ULL << 52 && ex > 1;    /* the double below is half as far */
		c = wide ? compare(D, dexp, 4 * mant - 1, bexp - 2) : compare(D, dexp, 2 * mant - 1, bexp - 1);
		if (c < 0 || (c == 0 && !sticky && (mant & 1))) {
			if (--bits == 0)
				break;                                      /* down to zero */
			continue;
		}
		break;
	}
	__builtin_memcpy(&d, &bits, 8);
	return d;
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

/* A hex float's double: ERANGE on overflow, or when it is below the
   normal range and not exact (as glibc does). */
static double finish(long double v, int neg)
{
	double d = (double)v;
	if (d == __builtin_inf() || (d < 2.2250738585072014e-308 && (long double)d != v))
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
	const char *first = 0;   /* the first significant digit */
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
		if (!first)
			first = s;
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
	const char *mend = s;    /* the end of the digits */
	if ((*s | 0x20) == (hex ? 'p' : 'e'))
		e += exponent(&s);
	if (end)
		*end = (char *)s;
	if (m == 0)
		return neg ? -0.0 : 0.0;
	if (hex) {
		if (sticky)
			m |= 1;          /* a dropped nonzero digit: "above", for the rounding */
		return finish((long double)m * twopow((int)e), neg);
	}
	if (m < (1ULL << 53) && !sticky && e >= -22 && e <= 22) {
		double d = (double)m;
		d = e < 0 ? d / exact10[-e] : d * exact10[e];
		return neg ? -d : d;
	}
	/* The value is 0.d1d2... * 10^(e + digits). */
	if (e + digits > 310) {
		errno = ERANGE;
		return neg ? -__builtin_inf() : __builtin_inf();
	}
	if (e + digits < -325) {
		errno = ERANGE;
		return neg ? -0.0 : 0.0;
	}
	long double v = (long double)m;
	/* Split very small scales so the long double intermediate stays normal. */
	if (e < -300)
		v = v * tenpow(-300) * tenpow((int)e + 300);
	else
		v *= tenpow((int)e);
	/* The exact value: up to MAXD digits in D, the rest as sticky. */
	struct big D = { .n = 0 };
	int nd = 0, more = 0;
	uint32_t chunk = 0, scale = 1;
	for (const char *p = first; p < mend; p++) {
		if (*p == '.')
			continue;
		if (nd == MAXD) {
			more |= *p != '0';
			continue;
		}
		chunk = chunk * 10 + (uint32_t)(*p - '0');
		scale *= 10;
		nd++;
		if (scale == 1000000000) {
			big_mul(&D, scale);              /* D = D * 10^9 + chunk */
			big_add(&D, chunk);
			chunk = 0, scale = 1;
		}
	}
	if (scale > 1) {
		big_mul(&D, scale);
		big_add(&D, chunk);
	}
	double d = correct((double)v, &D, (int)(e + digits - nd), more);
	if (d == __builtin_inf() || d < 2.2250738585072014e-308)
		errno = ERANGE;
	return neg ? -d : d;
}

/*
 * Is the decimal number at s (sign ignored) above, at or below the
 * double x: 1, 0, -1. Exact, as correct() (the digits past MAXD only as
 * "more than").
 */
static int against(const char *s, double x)
{
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+' || *s == '-')
		s++;
	struct big D = { .n = 0 };
	long e = 0;
	int nd = 0, more = 0, dot = 0;
	uint32_t chunk = 0, scale = 1;
	for (;; s++) {
		if (*s == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			break;
		if (nd == 0 && *s == '0') {
			e -= dot;
			continue;
		}
		if (nd == MAXD) {
			more |= *s != '0';
			e += !dot;
			continue;
		}
		chunk = chunk * 10 + (uint32_t)(*s - '0');
		scale *= 10;
		nd++;
		e -= dot;
		if (scale == 1000000000) {
			big_mul(&D, scale);
			big_add(&D, chunk);
			chunk = 0, scale = 1;
		}
	}
	if (scale > 1) {
		big_mul(&D, scale);
		big_add(&D, chunk);
	}
	if ((*s | 0x20) == 'e')
		e += exponent(&s);
	uint64_t bits;
	__builtin_memcpy(&bits, &x, 8);
	int ex = (int)(bits >> 52 & 0x7ff);
	uint64_t mant = bits & ((1ULL << 52) - 1);
	if (ex)
		mant |= 1ULL << 52;
	int c = compare(&D, (int)e, mant, ex ? ex - 1075 : -1074);
	return c ? c : more;
}

/*
 * strtof: the double strtod gives, rounded to float. That second
 * rounding is wrong only when the double lies exactly halfway between
 * two floats (every float midpoint is a double, so the nearest double to
 * a number on one side of a midpoint is never beyond it); then the exact
 * decimal decides which side. Hex input keeps strtod's rounding.
 */
float strtof(const char *s, char **end)
{
	double d = strtod(s, end);
	float f = (float)d;
	double ad = d < 0 ? -d : d;
	const char *p = s;
	while (isspace((unsigned char)*p))
		p++;
	p += *p == '+' || *p == '-';
	int hex = p[0] == '0' && (p[1] | 0x20) == 'x';
	if (!hex && ad == ad && ad != __builtin_inf() && (double)f != d) {
		union { float f; uint32_t u; } a = { f < 0 ? -f : f }, lo = a, hi = a;
		if ((double)a.f > ad)
			lo.u--;
		else
			hi.u++;
		long double top = hi.u == 0x7f800000u ? 0x1p128L : (long double)hi.f;
		if ((long double)ad * 2 == (long double)lo.f + top) {
			int c = against(s, ad);
			if (c)
				a = c > 0 ? hi : lo;
			f = d < 0 ? -a.f : a.f;
		}
	}
	if ((f == __builtin_inff() || f == -__builtin_inff()) && ad != __builtin_inf())
		errno = ERANGE;
	if (f == 0 && d != 0)
		errno = ERANGE;
	float af = f < 0 ? -f : f;
	if (af != 0 && af < 1.17549435e-38f &&        /* below FLT_MIN and inexact: glibc's ERANGE */
	    (hex ? (double)f != d : against(s, af) != 0))
		errno = ERANGE;
	return f;
}

long double strtold(const char *s, char **end)
{
	return strtod(s, end);
}
