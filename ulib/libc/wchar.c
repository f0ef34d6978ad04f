/* The minimal <wchar.h>: wide strings, and the "C" locale's one-byte
   conversions (bytes 0..0x7f only; others are EILSEQ). */
#include <wchar.h>
#include <string.h>
#include <errno.h>

size_t wcslen(const wchar_t *s) { size_t n = 0; while (s[n]) n++; return n; }
size_t wcsnlen(const wchar_t *s, size_t n) { size_t i = 0; while (i < n && s[i]) i++; return i; }

int wcsncmp(const wchar_t *a, const wchar_t *b, size_t n)
{
	for (; n; n--, a++, b++)
		if (*a != *b || !*a)
			return *a < *b ? -1 : *a > *b;
	return 0;
}

int wcscmp(const wchar_t *a, const wchar_t *b) { return wcsncmp(a, b, (size_t)-1); }
wchar_t *wcscpy(wchar_t *d, const wchar_t *s) { return wmemcpy(d, s, wcslen(s) + 1); }
wchar_t *wcscat(wchar_t *d, const wchar_t *s) { wcscpy(d + wcslen(d), s); return d; }

wchar_t *wcsncpy(wchar_t *d, const wchar_t *s, size_t n)
{
	size_t k = wcsnlen(s, n);
	wmemcpy(d, s, k);
	wmemset(d + k, 0, n - k);
	return d;
}

wchar_t *wcschr(const wchar_t *s, wchar_t c)
{
	for (;; s++) {
		if (*s == c)
			return (wchar_t *)s;
		if (!*s)
			return 0;
	}
}

wchar_t *wcsrchr(const wchar_t *s, wchar_t c)
{
	const wchar_t *r = 0;
	for (;; s++) {
		if (*s == c)
			r = s;
		if (!*s)
			return (wchar_t *)r;
	}
}

wchar_t *wmemset(wchar_t *d, wchar_t c, size_t n) { for (size_t i = 0; i < n; i++) d[i] = c; return d; }
wchar_t *wmemcpy(wchar_t *d, const wchar_t *s, size_t n) { return memcpy(d, s, n * sizeof *s); }
wchar_t *wmemmove(wchar_t *d, const wchar_t *s, size_t n) { return memmove(d, s, n * sizeof *s); }

int wmemcmp(const wchar_t *a, const wchar_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

wchar_t *wmemchr(const wchar_t *s, wchar_t c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == c)
			return (wchar_t *)s + i;
	return 0;
}

wint_t btowc(int c) { return c >= 0 && c < 0x80 ? (wint_t)c : WEOF; }
int wctob(wint_t c) { return c < 0x80 ? (int)c : -1; }
int mbsinit(const mbstate_t *ps) { return !ps || !ps->__count; }

size_t mbrtowc(wchar_t *pwc, const char *s, size_t n, mbstate_t *ps)
{
	(void)ps;
	if (!s)
		return 0;
	if (!n)
		return (size_t)-2;
	unsigned char c = (unsigned char)*s;
	if (c >= 0x80) {
		errno = EILSEQ;
		return (size_t)-1;
	}
	if (pwc)
		*pwc = c;
	return c != 0;
}

size_t mbrlen(const char *s, size_t n, mbstate_t *ps) { return mbrtowc(0, s, n, ps); }

size_t wcrtomb(char *s, wchar_t wc, mbstate_t *ps)
{
	(void)ps;
	if (!s)
		return 1;
	if (wc < 0 || wc >= 0x80) {
		errno = EILSEQ;
		return (size_t)-1;
	}
	*s = (char)wc;
	return 1;
}

size_t mbstowcs(wchar_t *d, const char *s, size_t n)
{
	size_t i = 0;
	for (; !d || i < n; i++, s++) {
		wchar_t w = 0;
		if (mbrtowc(&w, s, 1, 0) == (size_t)-1)
			return (size_t)-1;
		if (!w)
			break;
		if (d)
			d[i] = w;
	}
	if (d && i < n)
		d[i] = 0;
	return i;
}

size_t wcstombs(char *d, const wchar_t *s, size_t n)
{
	size_t i = 0;
	for (; !d || i < n; i++, s++) {
		if (*s < 0 || *s >= 0x80) {
			errno = EILSEQ;
			return (size_t)-1;
		}
		if (!*s)
			break;
		if (d)
			d[i] = (char)*s;
	}
	if (d && i < n)
		d[i] = 0;
	return i;
}
