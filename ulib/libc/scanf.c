/*
 * sscanf: the C99 conversions d i u o x X c s [ ] p n f e g a (and E G F
 * A) with width, '*' (no assignment) and the length modifiers hh h l ll
 * j z t L. Integers go through strtoull/strtoll, floats through strtod,
 * on a copy of at most `width` characters when a width is given.
 * Returns the number of assignments, or EOF if the input ended before
 * the first conversion completed. One engine reads strings and streams
 * (fscanf, scanf, vfscanf, vscanf) through `struct src`: it looks one
 * character ahead, and a stream gets that character back (ungetc) when
 * the scan stops, so a matching failure leaves it unread (C11 7.21.6.2).
 * A number's input item is gathered first (gather()): the longest run
 * that is a number or can still begin one (C11 7.21.6.2p9), then
 * converted; an item that is only a beginning ("0x", "1e+") is a
 * matching failure, its characters read, as musl and the standard do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>

enum { HH = -2, H = -1, I = 0, L = 1, LL = 2, LD = 3, SZ = 4 };

static void store_int(va_list *ap, int len, uint64_t v)
{
	switch (len) {
	case HH: *va_arg(*ap, signed char *) = (signed char)v; break;
	case H: *va_arg(*ap, short *) = (short)v; break;
	case L: case SZ: *va_arg(*ap, long *) = (long)v; break;
	case LL: *va_arg(*ap, long long *) = (long long)v; break;
	default: *va_arg(*ap, int *) = (int)v; break;
	}
}

/* The characters a %[ set accepts: *f points after '['; returns the ']'. */
static const char *set_parse(const char *f, unsigned char in[256])
{
	int neg = *f == '^';
	if (neg)
		f++;
	memset(in, 0, 256);
	if (*f == ']')
		in[(unsigned char)*f++] = 1;
	for (; *f && *f != ']'; f++) {
		if (f[1] == '-' && f[2] && f[2] != ']') {
			for (int c = (unsigned char)f[0]; c <= (unsigned char)f[2]; c++)
				in[c] = 1;
			f += 2;
		} else
			in[(unsigned char)*f] = 1;
	}
	if (neg)
		for (int c = 0; c < 256; c++)
			in[c] = !in[c];
	in[0] = 0;
	return f;
}

/* The input: a string (s) or a stream (f, with c its looked-at
   character, NONE when none is). n counts the characters taken (%n). */
#define NONE (-2)
struct src {
	const char *s;
	FILE *f;
	int c;
	size_t n;
	int eof;      /* an input failure: the input ended where one was needed */
};

static int peek(struct src *in)
{
	if (!in->f)
		return *in->s ? (unsigned char)*in->s : EOF;
	if (in->c == NONE)
		in->c = fgetc(in->f);
	return in->c;
}

static void take(struct src *in)
{
	if (in->f)
		in->c = NONE;
	else
		in->s++;
	in->n++;
}

static void skip_space(struct src *in)
{
	while (peek(in) != EOF && isspace(peek(in)))
		take(in);
}

/* Whether c may extend the number in b[0..k) (base 0: an integer's
   base from its prefix; 'f': a float). */
static int fits(const char *b, size_t k, int c, int base)
{
	size_t i = k && (b[0] == '+' || b[0] == '-');
	if (k == i && (c == '+' || c == '-'))
		return k == 0;
	int hex = k >= i + 2 && b[i] == '0' && (b[i + 1] == 'x' || b[i + 1] == 'X');
	if (k == i + 1 && b[i] == '0' && (c == 'x' || c == 'X'))
		return base == 0 || base == 16 || base == 'f';
	if (base != 'f') {
		int b2 = base ? base : hex ? 16 : k > i && b[i] == '0' ? 8 : 10;
		int d = isdigit(c) ? c - '0' : isalpha(c) ? tolower(c) - 'a' + 10 : 99;
		return d < b2;
	}
	if (k > i && isalpha((unsigned char)b[i]) && !hex) {   /* inf, infinity, nan */
		const char *w = tolower((unsigned char)b[i]) == 'n' ? "nan" : "infinity";
		return k - i < strlen(w) && tolower(c) == w[k - i];
	}
	if (k == i)
		return isdigit(c) || c == '.' || tolower(c) == 'i' || tolower(c) == 'n';
	int e = hex ? 'p' : 'e', dot = 0, exp = 0, dig = 0;
	for (size_t j = i + 2 * hex; j < k; j++) {
		dot |= b[j] == '.';
		exp |= tolower((unsigned char)b[j]) == e;
		dig |= hex ? isxdigit((unsigned char)b[j]) : isdigit((unsigned char)b[j]);
	}
	char last = (char)tolower((unsigned char)b[k - 1]);
	if (c == '+' || c == '-')
		return last == e;
	if (isdigit(c))
		return 1;
	if (c == '.')
		return !dot && !exp;
	if (tolower(c) == e)
		return !exp && dig;
	return hex && !exp && isxdigit(c);
}

/* A number's characters into b (at most w); their count. */
static size_t gather(struct src *in, char *b, size_t w, int base)
{
	size_t k = 0;
	int c;
	while (k < w && (c = peek(in)) != EOF && fits(b, k, c, base)) {
		b[k++] = (char)c;
		take(in);
	}
	b[k] = 0;
	return k;
}

static int scan(struct src *in, const char *f, va_list ap0)
{
	va_list ap;
	va_copy(ap, ap0);
	int n = 0, done = 0;
	char tmp[400];
	for (; *f; f++) {
		if (isspace((unsigned char)*f)) {
			skip_space(in);
			continue;
		}
		if (*f != '%' || f[1] == '%') {
			if (*f == '%') {
				f++;
				skip_space(in);
			}
			int c = peek(in);
			if (c == EOF)
				in->eof = 1;
			if (c != (unsigned char)*f)
				goto out;
			take(in);
			continue;
		}
		f++;
		int skip = *f == '*';
		if (skip)
			f++;
		size_t width = 0;
		while (isdigit((unsigned char)*f))
			width = width * 10 + (size_t)(*f++ - '0');
		int len = I;
		for (;; f++) {
			if (*f == 'h') len = len == H ? HH : H;
			else if (*f == 'l') len = len == L ? LL : L;
			else if (*f == 'L' || *f == 'q') len = *f == 'L' ? LD : LL;
			else if (*f == 'j') len = LL;
			else if (*f == 'z' || *f == 't') len = SZ;
			else break;
		}
		int c = *f;
		if (!c)
			break;
		if (c == 'n') {
			if (!skip)
				store_int(&ap, len, (uint64_t)in->n);
			continue;
		}
		if (c != 'c' && c != '[')
			skip_space(in);
		if (peek(in) == EOF) {
			in->eof = 1;
			goto out;      /* input failure */
		}
		if (c == 'c') {
			size_t w = width ? width : 1, k = 0;
			char *d = skip ? 0 : va_arg(ap, char *);
			for (; k < w && peek(in) != EOF; k++, take(in))
				if (d)
					d[k] = (char)peek(in);
			if (k < w) {
				in->eof = 1;
				goto out;
			}
			n += !skip;
			done++;
			continue;
		}
		if (c == 's' || c == '[') {
			unsigned char set[256];
			if (c == '[')
				f = set_parse(f + 1, set);
			else
				for (int i = 0; i < 256; i++)
					set[i] = i && !isspace(i);
			char *d = skip ? 0 : va_arg(ap, char *);
			size_t k = 0;
			int ch;
			while ((ch = peek(in)) != EOF && set[ch] && (!width || k < width)) {
				if (d)
					d[k] = (char)ch;
				k++;
				take(in);
			}
			if (k == 0)
				goto out;      /* matching failure */
			if (d)
				d[k] = 0;
			n += !skip;
			done++;
			continue;
		}
		/* Numbers: gather the characters, then convert them. */
		int isf = strchr("eEfFgGaA", c) != 0;
		if (!isf && !strchr("diuoxXp", c))
			goto out;      /* unknown conversion */
		int base = isf ? 'f' : c == 'd' || c == 'u' ? 10 : c == 'o' ? 8 : c == 'i' ? 0 : 16;
		size_t w = width && width < sizeof tmp - 1 ? width : sizeof tmp - 1;
		size_t k = gather(in, tmp, w, base);
		char *end;
		if (isf) {
			double v = strtod(tmp, &end);
			if (k == 0 || end != tmp + k)
				goto out;      /* matching failure, its characters read */
			if (!skip) {
				if (len == L)
					*va_arg(ap, double *) = v;
				else if (len == LD)
					*va_arg(ap, long double *) = v;
				else
					*va_arg(ap, float *) = (float)v;
				n++;
			}
		} else {
			uint64_t v = c == 'd' || c == 'i' ? (uint64_t)strtoll(tmp, &end, base)
						 : strtoull(tmp, &end, base);
			if (k == 0 || end != tmp + k)
				goto out;
			if (!skip) {
				if (c == 'p')
					*va_arg(ap, void **) = (void *)(uintptr_t)v;
				else
					store_int(&ap, len, v);
				n++;
			}
		}
		done++;
	}
out:
	va_end(ap);
	if (in->f && in->c != NONE && in->c != EOF)
		ungetc(in->c, in->f);
	return in->eof && done == 0 ? EOF : n;
}

int vsscanf(const char *str, const char *f, va_list ap)
{
	struct src in = { .s = str, .c = NONE };
	return scan(&in, f, ap);
}

int sscanf(const char *s, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int r = vsscanf(s, f, ap);
	va_end(ap);
	return r;
}

int vfscanf(FILE *fp, const char *f, va_list ap)
{
	struct src in = { .f = fp, .c = NONE };
	flockfile(fp);
	int r = scan(&in, f, ap);
	funlockfile(fp);
	return r;
}

int fscanf(FILE *fp, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int r = vfscanf(fp, f, ap);
	va_end(ap);
	return r;
}

int vscanf(const char *f, va_list ap)
{
	return vfscanf(stdin, f, ap);
}

int scanf(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int r = vfscanf(stdin, f, ap);
	va_end(ap);
	return r;
}
