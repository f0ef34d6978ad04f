/*
 * fnmatch: '*', '?', bracket expressions ("[a-z]", "[!...]" or "[^...]",
 * classes such as "[[:digit:]]", ']' first taken as itself) and '\'
 * escapes, with the flags of <fnmatch.h>. '*' backtracks by recursion,
 * one level per '*' of the pattern. A '[' with no closing ']' is an
 * ordinary character and a pattern ending in an escaping '\' matches
 * nothing, as in glibc.
 */
#include <fnmatch.h>
#include <ctype.h>
#include <string.h>

#define NOMATCH FNM_NOMATCH

static int fold(int c, int fl)
{
	return fl & FNM_CASEFOLD ? tolower(c) : c;
}

/* Does c belong to the class named by n (len bytes)? -1: no such class. */
static int in_class(const char *n, size_t len, int c)
{
	static const struct { const char *name; int (*is)(int); } cl[] = {
		{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank }, { "cntrl", iscntrl },
		{ "digit", isdigit }, { "graph", isgraph }, { "lower", islower }, { "print", isprint },
		{ "punct", ispunct }, { "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
	};
	for (size_t i = 0; i < sizeof cl / sizeof cl[0]; i++)
		if (strlen(cl[i].name) == len && !memcmp(cl[i].name, n, len))
			return cl[i].is(c) != 0;
	return -1;
}

/* One character of a bracket at *pp, escapes undone; -1 at the end. */
static int bchar(const char **pp, int fl)
{
	const char *p = *pp;
	if (*p == '\\' && !(fl & FNM_NOESCAPE))
		p++;
	if (!*p)
		return -1;
	*pp = p + 1;
	return (unsigned char)*p;
}

/* The bracket after "[" at *pp against c: 1 matches, 0 not, -1 not a
   bracket (no closing ']'). *pp moves past the ']'. */
static int bracket(const char **pp, int c, int fl)
{
	const char *p = *pp;
	int neg = *p == '!' || *p == '^', ok = 0;
	if (neg)
		p++;
	for (int first = 1; first || *p != ']'; first = 0) {
		if (*p == '[' && p[1] == ':') {
			const char *e = strstr(p + 2, ":]");
			if (!e)
				return -1;
			int in = in_class(p + 2, (size_t)(e - p - 2), c);
			if (in < 0)
				return 0;            /* an unknown class matches nothing */
			if (in)
				ok = 1;              /* (a class is not case-folded: glibc) */
			p = e + 2;
			continue;
		}
		int lo = bchar(&p, fl), hi = lo;
		if (lo < 0)
			return -1;
		if (*p == '-' && p[1] && p[1] != ']') {
			p++;
			if ((hi = bchar(&p, fl)) < 0)
				return -1;
		}
		if ((c >= lo && c <= hi) ||
		    ((fl & FNM_CASEFOLD) && ((tolower(c) >= lo && tolower(c) <= hi) ||
					     (toupper(c) >= lo && toupper(c) <= hi))))
			ok = 1;
		if (!*p)
			return -1;
	}
	*pp = p + 1;
	return ok != neg;
}

/* s is at a name's first character, where FNM_PERIOD guards a '.'. */
static int leading(const char *s, const char *str, int fl)
{
	return (fl & FNM_PERIOD) && *s == '.' && (s == str || ((fl & FNM_PATHNAME) && s[-1] == '/'));
}

static int match(const char *p, const char *s, const char *str, int fl)
{
	for (;;) {
		int c = (unsigned char)*p++;
		int slash = *s == '/' && (fl & FNM_PATHNAME);
		switch (c) {
		case 0:
			return !*s || ((fl & FNM_LEADING_DIR) && *s == '/') ? 0 : NOMATCH;
		case '?':
			if (!*s || slash || leading(s, str, fl))
				return NOMATCH;
			s++;
			continue;
		case '*':
			if (leading(s, str, fl))
				return NOMATCH;
			while (*p == '*')
				p++;
			for (const char *t = s;; t++) {
				if (!match(p, t, str, fl))
					return 0;
				if (!*t || (*t == '/' && (fl & FNM_PATHNAME)))
					return NOMATCH;
			}
		case '[': {
			const char *q = p;
			int r = bracket(&q, (unsigned char)*s, fl);
			if (r >= 0) {
				if (!*s || slash || leading(s, str, fl) || !r)
					return NOMATCH;
				p = q, s++;
				continue;
			}
			break;                       /* '[' as itself */
		}
		case '\\':
			if (!(fl & FNM_NOESCAPE)) {
				if (!*p)
					return NOMATCH;      /* a '\\' that escapes nothing */
				c = (unsigned char)*p++;
			}
			break;
		}
		if (fold(c, fl) != fold((unsigned char)*s, fl) || !*s)
			return NOMATCH;
		s++;
	}
}

int fnmatch(const char *pattern, const char *name, int flags)
{
	return match(pattern, name, name, flags);
}
