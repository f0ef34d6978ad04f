/* Wide-string searches (<wchar.h>): wcsstr, wcsspn, wcscspn, wcspbrk,
   and wcsncat, wcsdup. Wide characters compare as numbers, as in the
   C locale. */
#include <wchar.h>
#include <stdlib.h>

wchar_t *wcsstr(const wchar_t *h, const wchar_t *n)
{
	size_t k = wcslen(n);
	for (; ; h++) {
		if (!wmemcmp(h, n, k))
			return (wchar_t *)h;
		if (!*h)
			return 0;
	}
}

static int in(wchar_t c, const wchar_t *set)
{
	for (; *set; set++)
		if (*set == c)
			return 1;
	return 0;
}

size_t wcsspn(const wchar_t *s, const wchar_t *set)
{
	size_t i = 0;
	while (s[i] && in(s[i], set))
		i++;
	return i;
}

size_t wcscspn(const wchar_t *s, const wchar_t *set)
{
	size_t i = 0;
	while (s[i] && !in(s[i], set))
		i++;
	return i;
}

wchar_t *wcspbrk(const wchar_t *s, const wchar_t *set)
{
	s += wcscspn(s, set);
	return *s ? (wchar_t *)s : 0;
}

wchar_t *wcsncat(wchar_t *d, const wchar_t *s, size_t n)
{
	wchar_t *p = d + wcslen(d);
	while (n-- && *s)
		*p++ = *s++;
	*p = 0;
	return d;
}

wchar_t *wcsdup(const wchar_t *s)
{
	size_t n = wcslen(s) + 1;
	wchar_t *d = malloc(n * sizeof *d);
	return d ? wmemcpy(d, s, n) : 0;
}
