/*
 * Locales: one ("C"). (The environment's variables: environ.c.)
 */
#include <stdlib.h>
#include <string.h>
#include <locale.h>

char *setlocale(int category, const char *locale)
{
	(void)category;
	if (!locale || !*locale || !strcmp(locale, "C") || !strcmp(locale, "POSIX"))
		return "C";
	return 0;
}

struct lconv *localeconv(void)
{
	static struct lconv c = { ".", "", "" };
	return &c;
}
