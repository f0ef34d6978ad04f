/*
 * strftime: every conversion of C99 and POSIX.1-2008 in the C locale
 * (UTC: %z is +0000, %Z UTC; names and formats from nl_langinfo, langinfo.c),
 * with glibc's flags, width and E/O
 * modifiers, and POSIX's '+' flag (which glibc lacks): zero padding, and
 * a '+' before a year (%C %F %G %Y) that needs more digits than usual or
 * a field wider than usual (%+5Y of 2016 is +2016).
 *
 * A conversion is % [flags _ - 0 + ^ #] [width] [E|O] letter. glibc's
 * rules: a number is zero-padded to its usual digits ('_' pads with
 * spaces, '-' not at all; %e %k %l pad with spaces unless '0'), then to
 * the width (zeros after the sign, or spaces after '_' or '-'); a year
 * (%C %G %Y) has no usual digits. Text and the composite conversions
 * (%c %D %F %r %R %T %x %X) are padded to the width with spaces, or zeros
 * after '0'. '^' makes text upper case, '#' swaps it (names upper, %p and
 * %Z lower). An unknown conversion is copied as it is.
 */
#include <langinfo.h>
#include <stdint.h>
#include <string.h>
#include <time.h>


struct out { char *s; size_t n, len; int full; };
struct spec { int pad, plus, up, swap, width; };

static void put(struct out *o, char c, long k)
{
	for (; k > 0; k--) {
		if (o->len + 1 >= o->n) {
			o->full = 1;
			return;
		}
		o->s[o->len++] = c;
	}
}

/* Text padded on the left to the width, its case as the flags ask. */
static void text(struct out *o, const struct spec *sp, const char *p, size_t k, int lower)
{
	put(o, sp->pad == '0' || sp->plus ? '0' : ' ', (long)sp->width - (long)k);
	for (size_t i = 0; i < k; i++) {
		char c = p[i];
		if (lower && c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		else if (!lower && sp->up && c >= 'a' && c <= 'z')
			c = (char)(c - 32);
		put(o, c, 1);
	}
}

/* A number: usual digits (ndig), the default pad ('0', or '_' for %e %k %l). */
static void number(struct out *o, const struct spec *sp, long long v, int ndig, int dflpad)
{
	char d[24];
	int nd = 0, neg = v < 0, pad = sp->plus ? '0' : sp->pad ? sp->pad : dflpad;
	unsigned long long m = neg ? 0 - (unsigned long long)v : (unsigned long long)v;
	do
		d[nd++] = (char)('0' + m % 10);
	while (m /= 10);
	long zeros = 0, spaces = 0;
	if (pad == '0')
		zeros = ndig - nd;
	else if (pad == '_')
		spaces = ndig - nd - neg;
	if (zeros < 0)
		zeros = 0;
	if (spaces < 0)
		spaces = 0;
	long len = spaces + neg + zeros + nd;
	if (sp->width > len) {
		if (pad == '0')
			zeros += sp->width - len;
		else
			spaces += sp->width - len;
	}
	put(o, ' ', spaces);
	put(o, '-', neg);
	put(o, '0', zeros);
	while (nd)
		put(o, d[--nd], 1);
}

/* %C %G %Y: no usual digits; POSIX's '+' pads to the width (or to usual
   digits) and signs a year wider than usual. */
static void year(struct out *o, const struct spec *sp, long long v, int usual)
{
	if (!sp->plus) {
		number(o, sp, v, 1, '0');
		return;
	}
	int w = sp->width ? sp->width : usual, nd = 0;
	for (unsigned long long m = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v; m; m /= 10)
		nd++;
	struct spec s = { .pad = '0', .width = w };
	if (v >= 0 && (w > usual || nd > usual)) {
		put(o, '+', 1);
		s.width = w - 1;
	}
	number(o, &s, v, 1, '0');
}

static int leap(long long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* ISO 8601 week (1..53) and the year it belongs to. */
static int isoweek(const struct tm *tm, long long *iy)
{
	long long y = tm->tm_year + 1900LL;
	int wd = (tm->tm_wday + 6) % 7;                    /* Monday 0 */
	int yd = tm->tm_yday;
	int jan1 = ((wd - yd) % 7 + 7) % 7;                /* weekday of 1 January */
	int w = (yd + jan1 + 7) / 7 - (jan1 > 3);          /* week 1 holds the first Thursday */
	if (w == 0) {                                      /* the last week of last year */
		y--;
		int pj = ((jan1 - 365 - leap(y)) % 7 + 7) % 7;
		w = 52 + (pj == 3 || (pj == 2 && leap(y)));
	} else if (w == 53 && !(jan1 == 3 || (jan1 == 2 && leap(y)))) {
		y++;
		w = 1;
	}
	*iy = y;
	return w;
}

static long long mod100(long long y) { return (y % 100 + 100) % 100; }
static long long floordiv100(long long y) { return y >= 0 ? y / 100 : -((-y + 99) / 100); }

static void conv(struct out *o, const char *f, const struct tm *tm);

/* A composite: formatted alone, then padded as text. */
static void sub(struct out *o, const struct spec *sp, const char *f, const struct tm *tm)
{
	char b[128];
	struct out t = { b, sizeof b, 0, 0 };
	conv(&t, f, tm);
	text(o, sp, b, t.len, 0);
}

/* One conversion letter c; returns 0 if there is no such conversion. */
static int one(struct out *o, struct spec *sp, char c, const struct tm *tm)
{
	long long y = tm->tm_year + 1900LL, iy;
	int wd = (tm->tm_wday % 7 + 7) % 7, mo = (tm->tm_mon % 12 + 12) % 12;
	int h12 = (tm->tm_hour + 11) % 12 + 1;
	const char *name = 0, *ampm = nl_langinfo(tm->tm_hour < 12 ? AM_STR : PM_STR);
	switch (c) {
	case 'a': name = nl_langinfo(ABDAY_1 + wd); break;
	case 'A': name = nl_langinfo(DAY_1 + wd); break;
	case 'b': case 'h': name = nl_langinfo(ABMON_1 + mo); break;
	case 'B': name = nl_langinfo(MON_1 + mo); break;
	case 'p': text(o, sp, ampm, strlen(ampm), sp->swap); return 1;
	case 'P': text(o, &(struct spec){ .pad = sp->pad, .width = sp->width }, ampm, strlen(ampm), 1); return 1;
	case 'Z': {              /* the zone gmtime gave, else ours */
		const char *z = tm->tm_zone ? tm->tm_zone : "UTC";
		text(o, sp, z, strlen(z), sp->swap);
		return 1;
	}
	case 'n': text(o, sp, "\n", 1, 0); return 1;
	case 't': text(o, sp, "\t", 1, 0); return 1;
	case '%': text(o, sp, "%", 1, 0); return 1;
	case 'c': sub(o, sp, nl_langinfo(D_T_FMT), tm); return 1;
	case 'D': sub(o, sp, "%m/%d/%y", tm); return 1;
	case 'x': sub(o, sp, nl_langinfo(D_FMT), tm); return 1;
	case 'r': sub(o, sp, nl_langinfo(T_FMT_AMPM), tm); return 1;
	case 'R': sub(o, sp, "%H:%M", tm); return 1;
	case 'T': sub(o, sp, "%H:%M:%S", tm); return 1;
	case 'X': sub(o, sp, nl_langinfo(T_FMT), tm); return 1;
	case 'F':
		if (sp->plus) {          /* POSIX: %+wF is %+[w-6]Y-%m-%d */
			struct spec ys = { .plus = 1, .width = sp->width > 6 ? sp->width - 6 : 4 };
			year(o, &ys, y, 4);
			conv(o, "-%m-%d", tm);
		} else
			sub(o, sp, "%Y-%m-%d", tm);
		return 1;
	case 'C': year(o, sp, floordiv100(y), 2); return 1;
	case 'Y': year(o, sp, y, 4); return 1;
	case 'G': isoweek(tm, &iy); year(o, sp, iy, 4); return 1;
	case 'g': isoweek(tm, &iy); number(o, sp, mod100(iy), 2, '0'); return 1;
	case 'V': number(o, sp, isoweek(tm, &iy), 2, '0'); return 1;
	case 'y': number(o, sp, mod100(y), 2, '0'); return 1;
	case 'd': number(o, sp, tm->tm_mday, 2, '0'); return 1;
	case 'e': number(o, sp, tm->tm_mday, 2, '_'); return 1;
	case 'H': number(o, sp, tm->tm_hour, 2, '0'); return 1;
	case 'k': number(o, sp, tm->tm_hour, 2, '_'); return 1;
	case 'I': number(o, sp, h12, 2, '0'); return 1;
	case 'l': number(o, sp, h12, 2, '_'); return 1;
	case 'j': number(o, sp, tm->tm_yday + 1, 3, '0'); return 1;
	case 'm': number(o, sp, tm->tm_mon + 1, 2, '0'); return 1;
	case 'M': number(o, sp, tm->tm_min, 2, '0'); return 1;
	case 'S': number(o, sp, tm->tm_sec, 2, '0'); return 1;
	case 'u': number(o, sp, wd ? wd : 7, 1, '0'); return 1;
	case 'w': number(o, sp, wd, 1, '0'); return 1;
	case 'U': number(o, sp, (tm->tm_yday + 7 - wd) / 7, 2, '0'); return 1;
	case 'W': number(o, sp, (tm->tm_yday + 7 - (wd + 6) % 7) / 7, 2, '0'); return 1;
	case 's': {              /* glibc pads it as text: zeros before a sign */
		struct tm t = *tm;
		long long v = (long long)timegm(&t);
		unsigned long long m = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
		char b[24], *p = b + sizeof b;
		do
			*--p = (char)('0' + m % 10);
		while (m /= 10);
		if (v < 0)
			*--p = '-';
		text(o, sp, p, (size_t)(b + sizeof b - p), 0);
		return 1;
	}
	case 'z':                /* glibc pads the sign and the number each */
		text(o, sp, "+", 1, 0);
		number(o, sp, 0, 4, '0');
		return 1;
	default:
		return 0;
	}
	struct spec s = *sp;
	s.up |= sp->swap;        /* '#' on a name: upper case */
	text(o, &s, name, strlen(name), 0);
	return 1;
}

/* Which letters take E and which O (glibc's sets; the C locale has no
   alternative forms, so they print as without). */
static const char e_ok[] = "cCnpPrRstTuxXyYzZ%";
static const char o_ok[] = "bBCdegGhHIjklmMnpPrRsStTuUVwWyzZ%";

static void conv(struct out *o, const char *f, const struct tm *tm)
{
	for (; *f && !o->full; f++) {
		if (*f != '%') {
			put(o, *f, 1);
			continue;
		}
		const char *start = f++;
		struct spec sp = { 0 };
		for (;; f++) {
			if (*f == '_' || *f == '-' || *f == '0')
				sp.pad = *f;
			else if (*f == '+')
				sp.plus = 1;
			else if (*f == '^')
				sp.up = 1;
			else if (*f == '#')
				sp.swap = 1;
			else
				break;
		}
		for (; *f >= '0' && *f <= '9'; f++)
			sp.width = sp.width > 100000 ? sp.width : sp.width * 10 + (*f - '0');
		int ok = 1;
		if (*f == 'E' || *f == 'O') {
			ok = *++f && strchr(*(f - 1) == 'E' ? e_ok : o_ok, *f);
		}
		if (!*f || !ok || !one(o, &sp, *f, tm)) {
			/* Not a conversion: copy it as written, padded (and, as
			   glibc, upper case after '#' on a name's letter). */
			sp.up |= sp.swap && *f && strchr("Bbh", *f);
			size_t k = *f ? (size_t)(f - start + 1) : strlen(start);
			text(o, &sp, start, k, 0);
			if (!*f)
				return;
		}
	}
}

size_t strftime(char *s, size_t n, const char *f, const struct tm *tm)
{
	struct out o = { s, n, 0, 0 };
	conv(&o, f, tm);
	if (o.full || !n)
		return 0;
	s[o.len] = 0;
	return o.len;
}
