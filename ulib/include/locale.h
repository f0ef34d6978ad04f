/* Locales: only "C" (and "" or "POSIX", which name it). */
#ifndef ULIB_LOCALE_H
#define ULIB_LOCALE_H

#include <bits/locale.h>

#define LC_CTYPE    0
#define LC_NUMERIC  1
#define LC_TIME     2
#define LC_COLLATE  3
#define LC_MONETARY 4
#define LC_MESSAGES 5
#define LC_ALL      6

struct lconv {
	char *decimal_point, *thousands_sep, *grouping;
};

char *setlocale(int category, const char *locale);   /* "C", or NULL for others */
struct lconv *localeconv(void);

#endif
