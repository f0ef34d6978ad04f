/* Numbers from strings: the strto* family and atoi/atol. */
#include <stdlib.h>
#include <limits.h>
#include <ctype.h>
#include <errno.h>

static int digitval(int c)
{
	if (isdigit(c))
		return c - '0';
	if (isalpha(c))
		return tolower(c) - 'a' + 10;
	return 99;
}

/*
 * The common part: parse an optional sign and the magnitude, saturating
 * at UINT64_MAX. Returns the magnitude; *neg tells the sign, *ovf whether
 * it saturated. *end is set as strtol specifies.
 */
static unsigned long long parse(const char *s, char **end, int base, int *neg, int *ovf)
{
	const char *p = s;
	unsigned long long v = 0;
	int any = 0;

	*neg = *ovf = 0;
	if (base < 0 || base == 1 || base > 36) {
		errno = EINVAL;
		if (end)
			*end = (char *)s;
		return 0;
	}
	while (isspace(*p))
		p++;
	if (*p == '+' || *p == '-')
		*neg = *p++ == '-';
	/* "0x" counts as a prefix only if a hex digit follows it. */
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] | 0x20) == 'x' &&
	    digitval((unsigned char)p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (base == 0)
		base = p[0] == '0' ? 8 : 10;
	for (;; p++) {
		int d = digitval((unsigned char)*p);
		if (d >= base)
			break;
		any = 1;
		if (v > (ULLONG_MAX - (unsigned)d) / (unsigned)base)
			*ovf = 1;
		else
			v = v * base + d;
	}
	if (end)
		*end = (char *)(any ? p : s);
	return *ovf ? ULLONG_MAX : v;
}

unsigned long long strtoull(const char *s, char **end, int base)
{
	int neg, ovf;
	unsigned long long v = parse(s, end, base, &neg, &ovf);
	if (ovf) {
		errno = ERANGE;
		return ULLONG_MAX;
	}
	return neg ? -v : v;      /* as C specifies: "-1" gives ULLONG_MAX */
}

long long strtoll(const char *s, char **end, int base)
{
	int neg, ovf;
	unsigned long long v = parse(s, end, base, &neg, &ovf);
	unsigned long long lim = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
	if (ovf || v > lim) {
		errno = ERANGE;
		return neg ? LLONG_MIN : LLONG_MAX;
	}
	return neg ? (long long)-v : (long long)v;
}

/* long and long long are the same width on x86-64. */
unsigned long strtoul(const char *s, char **end, int base)
{
	return strtoull(s, end, base);
}

long strtol(const char *s, char **end, int base)
{
	return strtoll(s, end, base);
}

int atoi(const char *s)
{
	return (int)strtol(s, 0, 10);
}

long atol(const char *s)
{
	return strtol(s, 0, 10);
}
