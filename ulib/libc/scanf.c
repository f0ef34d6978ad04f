/*
 * sscanf: the C99 conversions d i u o x X c s [ ] p n f e g a (and E G F
 * A) with width, '*' (no assignment) and the length modifiers hh h l ll
 * j z t L. Integers go through strtoull/strtoll, floats through strtod,
 * on a copy of at most `width` characters when a width is given.
 * Returns the number of assignments, or EOF if the input ended before
 * the first conversion.
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

int vsscanf(const char *str, const char *f, va_list ap0)
{
	va_list ap;
	va_copy(ap, ap0);
	const char *s = str;
	int n = 0, any = 0;
	char tmp[400];
	for (; *f; f++) {
		if (isspace((unsigned char)*f)) {
			while (isspace((unsigned char)*s))
				s++;
			continue;
		}
		if (*f != '%' || f[1] == '%') {
			if (*f == '%')
				f++;
			if (*f == '%')
				while (isspace((unsigned char)*s))
					s++;
			if (*s != *f)
				goto out;
			s++;
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
				store_int(&ap, len, (uint64_t)(s - str));
			continue;
		}
		if (c != 'c' && c != '[')
			while (isspace((unsigned char)*s))
				s++;
		if (!*s)
			goto out;      /* input failure */
		any = 1;
		if (c == 'c') {
			size_t w = width ? width : 1;
			if (strnlen(s, w) < w)
				goto out;
			if (!skip)
				memcpy(va_arg(ap, char *), s, w), n++;
			s += w;
			continue;
		}
		if (c == 's' || c == '[') {
			unsigned char in[256];
			if (c == '[')
				f = set_parse(f + 1, in);
			else
				for (int i = 0; i < 256; i++)
					in[i] = i && !isspace(i);
			const char *p = s;
			while (*p && in[(unsigned char)*p] && (!width || (size_t)(p - s) < width))
				p++;
			if (p == s)
				goto out;
			if (!skip) {
				char *d = va_arg(ap, char *);
				memcpy(d, s, (size_t)(p - s));
				d[p - s] = 0;
				n++;
			}
			s = p;
			continue;
		}
		/* Numbers: parse from s, or from a copy cut at the width. */
		const char *src = s;
		if (width) {
			size_t w = width < sizeof tmp - 1 ? width : sizeof tmp - 1;
			w = strnlen(s, w);
			memcpy(tmp, s, w);
			tmp[w] = 0;
			src = tmp;
		}
		char *end;
		if (strchr("eEfFgGaA", c)) {
			double v = strtod(src, &end);
			if (end == src)
				goto out;
			if (!skip) {
				if (len == L)
					*va_arg(ap, double *) = v;
				else if (len == LD)
					*va_arg(ap, long double *) = v;
				else
					*va_arg(ap, float *) = (float)v;
				n++;
			}
		} else if (strchr("diuoxXp", c)) {
			int base = c == 'd' || c == 'u' ? 10 : c == 'o' ? 8 : c == 'i' ? 0 : 16;
			uint64_t v = c == 'd' || c == 'i' ? (uint64_t)strtoll(src, &end, base)
						 : strtoull(src, &end, base);
			if (end == src)
				goto out;
			if (!skip) {
				if (c == 'p')
					*va_arg(ap, void **) = (void *)(uintptr_t)v;
				else
					store_int(&ap, len, v);
				n++;
			}
		} else
			goto out;      /* unknown conversion */
		s += end - src;
	}
out:
	va_end(ap);
	return n == 0 && !any && !*s ? EOF : n;
}

int sscanf(const char *s, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int r = vsscanf(s, f, ap);
	va_end(ap);
	return r;
}
