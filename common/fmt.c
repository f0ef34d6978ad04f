/*
 * printf formatting, shared by kernel and user (see fmt.h).
 * Kept free of any library call so the kernel can build it as is.
 * (The function is fmt_format, not fmt: ulib's exported names stay out of
 * the way of programs' own globals.)
 */
#include <stdint.h>
#include <stddef.h>
#include <animacom/fmt.h>

/* %m's text (ulib/libc/stdio.c); the kernel has none. */
extern const char *fmt_errno_message(void) __attribute__((weak));

struct spec {
	int left, zero, plus, space, alt;
	int width, prec;   /* prec < 0: none */
	int len;           /* 0 int, 1 long, 2 long long, -1 short, -2 char, 3 long double */
};

static int emit(fmt_put_fn put, void *arg, char c, int n)
{
	for (int i = 0; i < n; i++)
		put(c, arg);
	return n > 0 ? n : 0;
}

/* Print a digit string s (length n) with sign/prefix and padding. */
static int pad_out(fmt_put_fn put, void *arg, const struct spec *sp,
		   const char *prefix, const char *s, int n)
{
	int plen = 0, out = 0;
	while (prefix[plen])
		plen++;
	int zeros = (sp->prec > n) ? sp->prec - n : 0;
	int body = plen + zeros + n;
	int padn = sp->width > body ? sp->width - body : 0;
	if (sp->zero && !sp->left && sp->prec < 0) {
		zeros += padn;
		padn = 0;
	}
	if (!sp->left)
		out += emit(put, arg, ' ', padn);
	for (int i = 0; i < plen; i++, out++)
		put(prefix[i], arg);
	out += emit(put, arg, '0', zeros);
	for (int i = 0; i < n; i++, out++)
		put(s[i], arg);
	if (sp->left)
		out += emit(put, arg, ' ', padn);
	return out;
}

static int fmt_uint(fmt_put_fn put, void *arg, const struct spec *sp,
		    uint64_t v, int base, int upper, int neg)
{
	char buf[24];
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0, nz = v != 0;
	if (v == 0 && sp->prec == 0)
		n = 0;
	else
		do {
			buf[sizeof buf - 1 - n++] = digits[v % base];
			v /= base;
		} while (v);
	const char *prefix = "";
	if (neg)
		prefix = "-";
	else if (sp->plus && base == 10)
		prefix = "+";
	else if (sp->space && base == 10)
		prefix = " ";
	else if (sp->alt && base == 16 && nz)
		prefix = upper ? "0X" : "0x";     /* (C: only for a nonzero value) */
	else if (sp->alt && base == 8 && (n == 0 || (nz && sp->prec <= n)))
		prefix = "0";                     /* a first digit 0, unless there is one */
	return pad_out(put, arg, sp, prefix, buf + sizeof buf - n, n);
}

#ifdef FMT_FLOAT
/*
 * %f %e %g for doubles, exact (the same digits glibc prints): the double
 * is an exact fraction N/D of big integers, scaled so that 1 <= N/D < 10;
 * digits come out one at a time by long division, and the last one is
 * rounded half-to-even on the exact remainder. Big integers need at most
 * ~1130 bits (a subnormal times 10^324), hence BIG_LIMBS.
 */
#define BIG_LIMBS 40
#define FMT_MAXPREC 1100        /* larger precisions are clamped: past any double's exact digits (1074) */
#define FMT_MAXDIG (309 + FMT_MAXPREC + 2)

#include <animacom/big.h>

static void big_sub(struct big *a, const struct big *b)   /* a -= b; a >= b */
{
	int64_t borrow = 0;
	for (int i = 0; i < a->n; i++) {
		int64_t t = (int64_t)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;
		borrow = t < 0;
		a->w[i] = (uint32_t)(t + (borrow << 32));
	}
	while (a->n && !a->w[a->n - 1])
		a->n--;
}

/* Is 2a compared with b <, == or >? */
static int big_cmp_half(const struct big *a, const struct big *b)
{
	struct big t = *a;
	big_mul(&t, 2);
	return big_cmp(&t, b);
}

/*
 * The first `count` decimal digits of d > 0 (or of 0), correctly rounded,
 * into dig. *k receives the decimal exponent of dig[0] (d ~ 0.dig * 10^(k+1)).
 * With fixed = 1 the digit count follows the exponent (for %f: digits down
 * to 10^-prec): count = k + 1 + prec, recomputed here. Returns the count,
 * which may be 0 when the value rounds to nothing at that precision.
 */
static int fmt_digits(double d, int fixed, int want, char *dig, int *kout)
{
	union { double d; uint64_t u; } v = { d };
	uint64_t f = v.u & ((1ull << 52) - 1);
	int be = (int)(v.u >> 52 & 0x7ff), q;
	struct big N, D;
	int k = 0;

	if (d == 0) {
		int count = fixed ? 1 + want : want;
		for (int i = 0; i < count; i++)
			dig[i] = '0';
		*kout = 0;
		return count;
	}
	if (be) {
		f |= 1ull << 52;
		q = be - 1075;
	} else
		q = -1074;
	/* d = f * 2^q = N / D exactly. */
	big_set(&N, f);
	big_set(&D, 1);
	if (q > 0)
		big_shl(&N, q);
	else
		big_shl(&D, -q);
	/* Estimate k = floor(log10 d) from floor(log2 d), then fix it up. */
	int l2 = q + 63 - __builtin_clzll(f);
	k = (l2 * 78913) >> 18;          /* 78913 / 2^18 ~ log10(2) */
	if (k >= 0)
		big_pow10(&D, k);
	else
		big_pow10(&N, -k);
	struct big D10 = D;
	big_mul(&D10, 10);
	while (big_cmp(&N, &D10) >= 0) {
		big_mul(&D, 10);
		big_mul(&D10, 10);
		k++;
	}
	while (big_cmp(&N, &D) < 0) {
		big_mul(&N, 10);
		k--;
	}

	int count = fixed ? k + 1 + want : want;
	if (count > FMT_MAXDIG - 1)
		count = FMT_MAXDIG - 1;
	int up;
	if (count < 0) {
		up = 0;
		count = 0;
	} else if (count == 0) {
		/* Only the rounding digit exists: N/D/10 against one half. */
		struct big T = D;
		big_mul(&T, 5);
		int c = big_cmp(&N, &T);
		up = c > 0;           /* a tie rounds to even, i.e. to 0 */
	} else {
		for (int i = 0; i < count; i++) {
			int digit = 0;
			while (big_cmp(&N, &D) >= 0) {
				big_sub(&N, &D);
				digit++;
			}
			dig[i] = (char)('0' + digit);
			if (i + 1 < count)
				big_mul(&N, 10);
		}
		int c = big_cmp_half(&N, &D);
		up = c > 0 || (c == 0 && (dig[count - 1] - '0') % 2);
	}
	if (up) {
		int i = count - 1;
		while (i >= 0 && dig[i] == '9')
			dig[i--] = '0';
		if (i >= 0)
			dig[i]++;
		else {
			/* 99..9 became 100..0: one more leading digit. */
			for (int j = count; j > 0; j--)
				dig[j] = dig[j - 1];
			dig[0] = '1';
			k++;
			if (fixed)
				count++;
		}
	}
	*kout = k;
	return count;
}

static int fmt_double(fmt_put_fn put, void *arg, struct spec *sp, double d, char conv)
{
	char buf[FMT_MAXDIG + 16], dig[FMT_MAXDIG + 1];
	int n = 0, k;
	int upper = conv == 'E' || conv == 'G' || conv == 'F';
	conv = (char)(conv | 0x20);
	int neg = __builtin_signbit(d) != 0;   /* also -0.0 */
	if (neg)
		d = -d;
	const char *sign = neg ? "-" : sp->plus ? "+" : sp->space ? " " : "";
	int saved = sp->prec, savedzero = sp->zero, out;
	sp->prec = -1;
	if (d != d || d > 1.7976931348623157e308) {
		sp->zero = 0;                  /* a NaN keeps its sign: glibc's "-nan" */
		out = pad_out(put, arg, sp, sign,
			      d != d ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"), 3);
		sp->prec = saved;
		sp->zero = savedzero;
		return out;
	}
	int prec = saved < 0 ? 6 : saved;
	if (prec > FMT_MAXPREC)
		prec = FMT_MAXPREC;

	int strip = 0;
	if (conv == 'g') {
		int p = prec ? prec : 1;
		fmt_digits(d, 0, p, dig, &k);    /* the exponent after rounding */
		if (k < -4 || k >= p) {
			conv = 'e';
			prec = p - 1;
		} else {
			conv = 'f';
			prec = p - 1 - k;
		}
		strip = !sp->alt;
	}

	if (conv == 'e') {
		fmt_digits(d, 0, prec + 1, dig, &k);
		buf[n++] = dig[0];
		if (prec > 0 || sp->alt)
			buf[n++] = '.';
		for (int i = 1; i <= prec; i++)
			buf[n++] = dig[i];
	} else {
		/* dig holds the digits for 10^k down to 10^-prec. */
		int nd = fmt_digits(d, 1, prec, dig, &k), di = 0;
		if (nd == 0)
			k = -1;
		if (k < 0)
			buf[n++] = '0';
		for (int pos = k; pos >= 0; pos--)
			buf[n++] = dig[di++];
		if (prec > 0 || sp->alt)
			buf[n++] = '.';
		for (int pos = -1; pos >= -prec; pos--)
			buf[n++] = (pos > k || di >= nd) ? '0' : dig[di++];
	}
	if (strip) {
		int dot = -1;
		for (int i = 0; i < n; i++)
			if (buf[i] == '.')
				dot = i;
		if (dot >= 0) {
			while (n > dot + 1 && buf[n - 1] == '0')
				n--;
			if (n == dot + 1)
				n--;
		}
	}
	if (conv == 'e') {
		buf[n++] = upper ? 'E' : 'e';
		buf[n++] = k < 0 ? '-' : '+';
		int x = k < 0 ? -k : k;
		if (x >= 100)
			buf[n++] = (char)('0' + x / 100);
		buf[n++] = (char)('0' + x / 10 % 10);
		buf[n++] = (char)('0' + x % 10);
	}
	out = pad_out(put, arg, sp, sign, buf, n);
	sp->prec = saved;
	return out;
}

/*
 * %a and %A: a value as lead.frac * 2^exp in hex, as glibc prints it. A
 * double is 1.xxx (13 digits) or a subnormal 0.xxx p-1022; a long double
 * shows its 64-bit significand as is, the top nibble leading (1.0L is
 * 0x8p-3). frac holds 15 hex digits in its low 60 bits. A precision
 * rounds to nearest, ties to even; a carry may make the lead 2 (0x2p+0,
 * as glibc) or, for a long double, 16, which becomes 1 with exp + 4.
 */
static int fmt_hex(fmt_put_fn put, void *arg, struct spec *sp, int neg,
		   int lead, uint64_t frac, int exp, int upper)
{
	const char *dg = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char buf[FMT_MAXPREC + 32], pre[4];
	int p = sp->prec, n = 0, np = 0;
	if (p < 0)
		for (p = 15; p > 0 && !(frac >> (60 - 4 * p) & 15); p--)
			;
	if (p > FMT_MAXPREC)
		p = FMT_MAXPREC;
	if (p < 15) {
		int drop = 60 - 4 * p;
		uint64_t rem = frac & ((1ull << drop) - 1), half = 1ull << (drop - 1);
		frac >>= drop;
		int odd = p ? (int)(frac & 1) : lead & 1;
		if (rem > half || (rem == half && odd))
			frac++;
		if (p == 0 || frac >> 4 * p) {   /* carried into the lead */
			lead += p == 0 ? (int)frac : 1;
			frac = 0;
		}
		frac <<= drop;
		if (lead == 16)
			lead = 1, exp += 4;
	}
	buf[n++] = dg[lead];
	if (p > 0 || sp->alt)
		buf[n++] = '.';
	for (int i = 0; i < p; i++)
		buf[n++] = i < 15 ? dg[frac >> (56 - 4 * i) & 15] : '0';
	buf[n++] = upper ? 'P' : 'p';
	buf[n++] = exp < 0 ? '-' : '+';
	unsigned x = exp < 0 ? -exp : exp;
	char e[8];
	int ne = 0;
	do
		e[ne++] = (char)('0' + x % 10);
	while (x /= 10);
	while (ne)
		buf[n++] = e[--ne];
	if (neg || sp->plus || sp->space)
		pre[np++] = neg ? '-' : sp->plus ? '+' : ' ';
	pre[np++] = '0';
	pre[np++] = upper ? 'X' : 'x';
	pre[np] = 0;
	int saved = sp->prec, out;
	sp->prec = -1;
	out = pad_out(put, arg, sp, pre, buf, n);
	sp->prec = saved;
	return out;
}

/* %a of a double or (ld) a long double: take it apart for fmt_hex. */
static int fmt_hexval(fmt_put_fn put, void *arg, struct spec *sp, double d,
		      long double ld, int isld, int upper)
{
	union { double d; uint64_t u; } v = { d };
	union { long double ld; struct { uint64_t m; uint16_t se; } b; } w = { ld };
	int neg = isld ? w.b.se >> 15 : (int)(v.u >> 63);
	int be = isld ? w.b.se & 0x7fff : (int)(v.u >> 52 & 0x7ff);
	if (be == (isld ? 0x7fff : 0x7ff))       /* inf and nan: as %f prints them */
		return fmt_double(put, arg, sp, isld ? (double)ld : d, upper ? 'E' : 'e');
	uint64_t m = isld ? w.b.m : v.u & ((1ull << 52) - 1);
	if (isld)
		return fmt_hex(put, arg, sp, neg, (int)(m >> 60), m & ((1ull << 60) - 1),
			       be ? be - 16386 : m ? -16385 : 0, upper);
	return fmt_hex(put, arg, sp, neg, be != 0, m << 8, be ? be - 1023 : m ? -1022 : 0, upper);
}
#endif

int fmt_format(fmt_put_fn put, void *arg, const char *f, va_list ap)
{
	int out = 0;
	for (; *f; f++) {
		if (*f != '%') {
			put(*f, arg);
			out++;
			continue;
		}
		struct spec sp = { .prec = -1 };
		for (;; f++) {
			char c = f[1];
			if (c == '-') sp.left = 1;
			else if (c == '0') sp.zero = 1;
			else if (c == '+') sp.plus = 1;
			else if (c == ' ') sp.space = 1;
			else if (c == '#') sp.alt = 1;
			else if (c == '\'') ;   /* group thousands: the C locale has no separator */
			else break;
		}
		f++;
		if (*f == '*') {
			sp.width = va_arg(ap, int);
			if (sp.width < 0) {
				sp.left = 1;
				sp.width = -sp.width;
			}
			f++;
		} else
			while (*f >= '0' && *f <= '9')
				sp.width = sp.width * 10 + (*f++ - '0');
		if (*f == '.') {
			f++;
			sp.prec = 0;
			if (*f == '*') {
				sp.prec = va_arg(ap, int);
				f++;
			} else
				while (*f >= '0' && *f <= '9')
					sp.prec = sp.prec * 10 + (*f++ - '0');
		}
		for (;; f++) {
			if (*f == 'l') sp.len = sp.len >= 1 ? 2 : 1;
			else if (*f == 'h') sp.len = sp.len <= -1 ? -2 : -1;
			else if (*f == 'z' || *f == 'Z' || *f == 'j' || *f == 't') sp.len = 1;   /* Z: glibc's old z */
			else if (*f == 'L') sp.len = 3;
			else break;
		}
		int64_t sv;
		uint64_t uv;
		switch (*f) {
		case 'd':
		case 'i':
			sv = sp.len == 2 ? va_arg(ap, long long)
			   : sp.len == 1 ? va_arg(ap, long) : va_arg(ap, int);
			if (sp.len == -1) sv = (short)sv;
			if (sp.len == -2) sv = (signed char)sv;
			out += fmt_uint(put, arg, &sp, sv < 0 ? -(uint64_t)sv : (uint64_t)sv, 10, 0, sv < 0);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			uv = sp.len == 2 ? va_arg(ap, unsigned long long)
			   : sp.len == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
			if (sp.len == -1) uv = (unsigned short)uv;
			if (sp.len == -2) uv = (unsigned char)uv;
			out += fmt_uint(put, arg, &sp, uv, *f == 'u' ? 10 : *f == 'o' ? 8 : 16, *f == 'X', 0);
			break;
		case 'p':
			sp.alt = 1;
			out += fmt_uint(put, arg, &sp, (uintptr_t)va_arg(ap, void *), 16, 0, 0);
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);
			int prec = sp.prec;
			sp.prec = -1;
			out += pad_out(put, arg, &sp, "", &c, 1);
			sp.prec = prec;
			break;
		}
		case 'm':                /* glibc: strerror(errno), no argument */
		case 's': {
			const char *s = *f == 'm' ? (fmt_errno_message ? fmt_errno_message() : "?") :
				       va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			int n = 0;
			while (s[n] && (sp.prec < 0 || n < sp.prec))
				n++;
			sp.prec = -1;
			out += pad_out(put, arg, &sp, "", s, n);
			break;
		}
#ifdef FMT_FLOAT
		case 'f':
		case 'F':
		case 'e':
		case 'E':
		case 'g':
		case 'G':
			/* %Lf: printed at double precision (the digits past
			   double's 17 are not long double's own). */
			out += fmt_double(put, arg, &sp, sp.len == 3 ? (double)va_arg(ap, long double)
						  : va_arg(ap, double), *f);
			break;
		case 'a':
		case 'A':
			if (sp.len == 3)
				out += fmt_hexval(put, arg, &sp, 0, va_arg(ap, long double), 1, *f == 'A');
			else
				out += fmt_hexval(put, arg, &sp, va_arg(ap, double), 0, 0, *f == 'A');
			break;
#endif
		case '%':
			put('%', arg);
			out++;
			break;
		case '\0':
			return out;
		default:   /* unknown conversion: print it literally */
			put('%', arg);
			put(*f, arg);
			out += 2;
		}
	}
	return out;
}
