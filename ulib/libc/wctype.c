/*
 * <wctype.h> in the C locale: a wide character below 0x80 is classed and
 * cased as <ctype.h> does the byte; any other (and WEOF) is in no class
 * and maps to itself. wctype() names the twelve classes (1..12, 0 for an
 * unknown name) and wctrans() the two mappings.
 */
#include <wctype.h>
#include <ctype.h>
#include <string.h>

static int ascii(wint_t c) { return c < 0x80; }

int iswalnum(wint_t c) { return ascii(c) && isalnum((int)c); }
int iswalpha(wint_t c) { return ascii(c) && isalpha((int)c); }
int iswblank(wint_t c) { return ascii(c) && isblank((int)c); }
int iswcntrl(wint_t c) { return ascii(c) && iscntrl((int)c); }
int iswdigit(wint_t c) { return ascii(c) && isdigit((int)c); }
int iswgraph(wint_t c) { return ascii(c) && isgraph((int)c); }
int iswlower(wint_t c) { return ascii(c) && islower((int)c); }
int iswprint(wint_t c) { return ascii(c) && isprint((int)c); }
int iswpunct(wint_t c) { return ascii(c) && ispunct((int)c); }
int iswspace(wint_t c) { return ascii(c) && isspace((int)c); }
int iswupper(wint_t c) { return ascii(c) && isupper((int)c); }
int iswxdigit(wint_t c) { return ascii(c) && isxdigit((int)c); }
wint_t towlower(wint_t c) { return ascii(c) ? (wint_t)tolower((int)c) : c; }
wint_t towupper(wint_t c) { return ascii(c) ? (wint_t)toupper((int)c) : c; }

static const char *const classes[] = { "alnum", "alpha", "blank", "cntrl", "digit", "graph",
				       "lower", "print", "punct", "space", "upper", "xdigit" };
static int (*const tests[])(wint_t) = { iswalnum, iswalpha, iswblank, iswcntrl, iswdigit,
					iswgraph, iswlower, iswprint, iswpunct, iswspace,
					iswupper, iswxdigit };

wctype_t wctype(const char *name)
{
	for (unsigned i = 0; i < sizeof classes / sizeof *classes; i++)
		if (!strcmp(name, classes[i]))
			return i + 1;
	return 0;
}

int iswctype(wint_t c, wctype_t t)
{
	return t >= 1 && t <= sizeof tests / sizeof *tests ? tests[t - 1](c) : 0;
}

static const int lower_map = 1, upper_map = 2;   /* (addresses name the mappings) */

wctrans_t wctrans(const char *name)
{
	return !strcmp(name, "tolower") ? &lower_map : !strcmp(name, "toupper") ? &upper_map : 0;
}

wint_t towctrans(wint_t c, wctrans_t t)
{
	return t == &lower_map ? towlower(c) : t == &upper_map ? towupper(c) : c;
}
