/*
 * The restartable string conversions of <wchar.h>: mbsrtowcs and
 * wcsrtombs (and their n-limited forms), in the C locale that is the only
 * one (wchar.c: a byte below 0x80 is its own wide character, anything
 * else EILSEQ). *src moves past what was converted: to 0 when the null
 * character was, else to the first character not converted (the bad one
 * after EILSEQ). With no destination only the length is counted and *src
 * stays. There is no shift state, so ps is not used.
 */
#include <wchar.h>
#include <errno.h>

size_t mbsnrtowcs(wchar_t *d, const char **src, size_t nms, size_t n, mbstate_t *ps)
{
	const unsigned char *s = (const unsigned char *)*src;
	size_t i = 0;
	(void)ps;
	for (; (!d || i < n) && nms; i++, s++, nms--) {
		if (*s >= 0x80) {
			errno = EILSEQ;
			if (d)
				*src = (const char *)s;
			return (size_t)-1;
		}
		if (d)
			d[i] = *s;
		if (!*s) {
			if (d)
				*src = 0;
			return i;
		}
	}
	if (d)
		*src = (const char *)s;
	return i;
}

size_t mbsrtowcs(wchar_t *d, const char **src, size_t n, mbstate_t *ps)
{
	return mbsnrtowcs(d, src, (size_t)-1, n, ps);
}

size_t wcsnrtombs(char *d, const wchar_t **src, size_t nwc, size_t n, mbstate_t *ps)
{
	const wchar_t *s = *src;
	size_t i = 0;
	(void)ps;
	for (; (!d || i < n) && nwc; i++, s++, nwc--) {
		if (*s < 0 || *s >= 0x80) {
			errno = EILSEQ;
			if (d)
				*src = s;
			return (size_t)-1;
		}
		if (d)
			d[i] = (char)*s;
		if (!*s) {
			if (d)
				*src = 0;
			return i;
		}
	}
	if (d)
		*src = s;
	return i;
}

size_t wcsrtombs(char *d, const wchar_t **src, size_t n, mbstate_t *ps)
{
	return wcsnrtombs(d, src, (size_t)-1, n, ps);
}
