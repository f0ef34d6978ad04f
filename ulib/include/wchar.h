/*
 * <wchar.h>, minimal: the types, the wide string and memory routines,
 * and the conversions of the only locale there is ("C", MB_CUR_MAX 1):
 * a byte below 0x80 is the wide character of the same value, any other
 * byte is EILSEQ. No wide stdio. ulib/wchar.c, docs/libc.md.
 */
#ifndef ULIB_WCHAR_H
#define ULIB_WCHAR_H

#include <stddef.h>

#ifndef __WINT_TYPE__
#define __WINT_TYPE__ unsigned int
#endif
typedef __WINT_TYPE__ wint_t;
typedef struct {
	unsigned __count;
} mbstate_t;
#define WEOF ((wint_t)-1)
#ifndef WCHAR_MIN
#define WCHAR_MIN __WCHAR_MIN__
#define WCHAR_MAX __WCHAR_MAX__
#endif

size_t wcslen(const wchar_t *s);
size_t wcsnlen(const wchar_t *s, size_t n);
int wcscmp(const wchar_t *a, const wchar_t *b);
int wcsncmp(const wchar_t *a, const wchar_t *b, size_t n);
wchar_t *wcscpy(wchar_t *d, const wchar_t *s);
wchar_t *wcsncpy(wchar_t *d, const wchar_t *s, size_t n);
wchar_t *wcscat(wchar_t *d, const wchar_t *s);
wchar_t *wcschr(const wchar_t *s, wchar_t c);
wchar_t *wcsrchr(const wchar_t *s, wchar_t c);
wchar_t *wmemset(wchar_t *d, wchar_t c, size_t n);
wchar_t *wmemcpy(wchar_t *d, const wchar_t *s, size_t n);
wchar_t *wmemmove(wchar_t *d, const wchar_t *s, size_t n);
int wmemcmp(const wchar_t *a, const wchar_t *b, size_t n);
wchar_t *wmemchr(const wchar_t *s, wchar_t c, size_t n);
/* ulib/libc/wcsfind.c, wcsnum.c */
wchar_t *wcsstr(const wchar_t *h, const wchar_t *n);
size_t wcsspn(const wchar_t *s, const wchar_t *set);
size_t wcscspn(const wchar_t *s, const wchar_t *set);
wchar_t *wcspbrk(const wchar_t *s, const wchar_t *set);
wchar_t *wcsncat(wchar_t *d, const wchar_t *s, size_t n);
wchar_t *wcsdup(const wchar_t *s);
long wcstol(const wchar_t *s, wchar_t **end, int base);
unsigned long wcstoul(const wchar_t *s, wchar_t **end, int base);
long long wcstoll(const wchar_t *s, wchar_t **end, int base);
unsigned long long wcstoull(const wchar_t *s, wchar_t **end, int base);
double wcstod(const wchar_t *s, wchar_t **end);
float wcstof(const wchar_t *s, wchar_t **end);

wint_t btowc(int c);
int wctob(wint_t c);
int mbsinit(const mbstate_t *ps);
size_t mbrlen(const char *s, size_t n, mbstate_t *ps);
size_t mbrtowc(wchar_t *pwc, const char *s, size_t n, mbstate_t *ps);
size_t wcrtomb(char *s, wchar_t wc, mbstate_t *ps);
size_t mbstowcs(wchar_t *d, const char *s, size_t n);
size_t wcstombs(char *d, const wchar_t *s, size_t n);
/* ulib/libc/mbsconv.c */
size_t mbsrtowcs(wchar_t *d, const char **src, size_t n, mbstate_t *ps);
size_t wcsrtombs(char *d, const wchar_t **src, size_t n, mbstate_t *ps);
size_t mbsnrtowcs(wchar_t *d, const char **src, size_t nms, size_t n, mbstate_t *ps);
size_t wcsnrtombs(char *d, const wchar_t **src, size_t nwc, size_t n, mbstate_t *ps);

#endif
