/*
 * strptime: the text at s read by the format into *tm, as glibc does in
 * the C locale: conversions %a %A %b %B %h %c %C %d %e %D %F %H %I %j %m
 * %M %n %t %p %r %R %s %S %T %u %U %w %W %x %X %y %Y %z %Z %%, with the E
 * and O modifiers accepted and ignored; white space in the format takes
 * any amount of it (none too); numbers may follow spaces. Only the
 * fields a conversion names change, except that once a date is read
 * tm_wday and tm_yday are worked out from tm_year, tm_mon and tm_mday
 * (or the month and day from %j), as glibc does.
 */
#define _GNU_SOURCE
#include <time.h>
#include <langinfo.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>


struct st {
	int century, yy, pm, have_I, have_wday, have_yday, have_mon, have_mday, date;
};

/* A number of at most `w` digits in [lo, hi] (after spaces), or 0. */
static const char *num(const char *s, int w, int lo, int hi, int *out)
{
	while (isspace((unsigned char)*s))
		s++;
	int neg = 0, v = 0, k = 0;
	if (lo < 0 && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	for (; k < w && isdigit((unsigned char)*s); k++)
		v = v * 10 + (*s++ - '0');
	if (!k || (neg ? -v : v) < lo || (neg ? -v : v) > hi)
		return 0;
	*out = neg ? -v : v;
	return s;
}

/* One of the n names from item `full` on (or from `abbr` on: the
   abbreviation), any case; its index. Full names first: "Mon" would
   match "Monday" short. */
static const char *name(const char *s, nl_item full, nl_item abbr, int n, int *out)
{
	for (int i = 0; i < 2 * n; i++) {
		const char *v = nl_langinfo(i < n ? full + i : abbr + i - n);
		size_t len = strlen(v);
		if (!strncasecmp(s, v, len))
			return *out = i % n, s + len;
	}
	return 0;
}

static int leap(long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int yday(int year, int mon, int mday)
{
	static const short before[] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
	return before[mon] + mday - 1 + (mon > 1 && leap(1900L + year));
}

/* The weekday of a date (Sakamoto's method over the Gregorian calendar). */
static int wday(long y, int mon, int mday)
{
	static const int t[] = { 0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4 };
	y -= mon < 2;
	long w = (y + y / 4 - y / 100 + y / 400 + t[mon] + mday) % 7;
	return (int)(w < 0 ? w + 7 : w);
}

static const char *conv(const char *s, const char **fp, struct tm *tm, struct st *st);

/* s read by the format f; the end of what was read, or 0. */
static const char *run(const char *s, const char *f, struct tm *tm, struct st *st)
{
	while (s && *f) {
		if (isspace((unsigned char)*f)) {
			while (isspace((unsigned char)*s))
				s++;
			f++;
		} else if (*f != '%') {
			if (*s++ != *f++)
				return 0;
		} else {
			f++;
			while (*f == 'E' || *f == 'O')
				f++;
			s = conv(s, &f, tm, st);
		}
	}
	return s;
}

static const char *conv(const char *s, const char **fp, struct tm *tm, struct st *st)
{
	int v;
	char c = *(*fp)++;
	switch (c) {
	case '%': return *s == '%' ? s + 1 : 0;
	case 'n': case 't':
		while (isspace((unsigned char)*s))
			s++;
		return s;
	case 'a': case 'A':
		if ((s = name(s, DAY_1, ABDAY_1, 7, &tm->tm_wday)))
			st->have_wday = 1;
		return s;
	case 'b': case 'B': case 'h':
		if ((s = name(s, MON_1, ABMON_1, 12, &tm->tm_mon)))
			st->have_mon = st->date = 1;
		return s;
	case 'c': return run(s, nl_langinfo(D_T_FMT), tm, st);
	case 'D': return run(s, "%m/%d/%y", tm, st);
	case 'x': return run(s, nl_langinfo(D_FMT), tm, st);
	case 'F': return run(s, "%Y-%m-%d", tm, st);
	case 'r': return run(s, nl_langinfo(T_FMT_AMPM), tm, st);
	case 'R': return run(s, "%H:%M", tm, st);
	case 'T': return run(s, "%H:%M:%S", tm, st);
	case 'X': return run(s, nl_langinfo(T_FMT), tm, st);
	case 'C':
		if ((s = num(s, 2, 0, 99, &st->century)))
			st->date = 1;
		return s;
	case 'd': case 'e':
		if ((s = num(s, 2, 1, 31, &tm->tm_mday)))
			st->have_mday = st->date = 1;
		return s;
	case 'H': return num(s, 2, 0, 23, &tm->tm_hour);
	case 'I':
		if ((s = num(s, 2, 1, 12, &v)))
			tm->tm_hour = v % 12, st->have_I = 1;
		return s;
	case 'j':
		if ((s = num(s, 3, 1, 366, &v)))
			tm->tm_yday = v - 1, st->have_yday = st->date = 1;
		return s;
	case 'm':
		if ((s = num(s, 2, 1, 12, &v)))
			tm->tm_mon = v - 1, st->have_mon = st->date = 1;
		return s;
	case 'M': return num(s, 2, 0, 59, &tm->tm_min);
	case 'S': return num(s, 2, 0, 61, &tm->tm_sec);
	case 'p':
		for (int pm = 0; pm < 2; pm++) {
			const char *v = nl_langinfo(pm ? PM_STR : AM_STR);
			if (!strncasecmp(s, v, strlen(v)))
				return st->pm = pm, s + strlen(v);
		}
		return 0;
	case 'u':
		if ((s = num(s, 1, 1, 7, &v)))
			tm->tm_wday = v % 7, st->have_wday = 1;
		return s;
	case 'w':
		if ((s = num(s, 1, 0, 6, &tm->tm_wday)))
			st->have_wday = 1;
		return s;
	case 'U': case 'W': return num(s, 2, 0, 53, &v);       /* read, not used (as glibc) */
	case 'y':
		if ((s = num(s, 2, 0, 99, &st->yy)))
			tm->tm_year = st->yy < 69 ? st->yy + 100 : st->yy, st->date = 1;
		return s;
	case 'Y':
		if ((s = num(s, 4, -9999, 9999, &v)))
			tm->tm_year = v - 1900, st->date = 1, st->yy = -1, st->century = -1;
		return s;
	case 's': {
		char *e;
		time_t t = (time_t)strtoll(s, &e, 10);
		if (e == s || !gmtime_r(&t, tm))
			return 0;
		return e;
	}
	case 'z': {
		int sign = *s == '-' ? -1 : *s == '+' ? 1 : 0, h, m = 0;
		if (*s == 'Z')
			return tm->tm_gmtoff = 0, s + 1;
		if (!sign || !isdigit((unsigned char)s[1]) || !isdigit((unsigned char)s[2]))
			return 0;
		h = (s[1] - '0') * 10 + (s[2] - '0');
		s += 3;
		if (*s == ':')
			s++;
		if (isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]))
			m = (s[0] - '0') * 10 + (s[1] - '0'), s += 2;
		if (h > 99 || m > 59)
			return 0;
		tm->tm_gmtoff = sign * (h * 3600 + m * 60);
		return s;
	}
	case 'Z':
		while (isalpha((unsigned char)*s))
			s++;
		return s;
	}
	return 0;
}

char *strptime(const char *s, const char *f, struct tm *tm)
{
	struct st st = { .century = -1, .yy = -1 };
	s = run(s, f, tm, &st);
	if (!s)
		return 0;
	if (st.have_I && st.pm)
		tm->tm_hour += 12;
	if (st.century >= 0)
		tm->tm_year = st.century * 100 - 1900 + (st.yy >= 0 ? st.yy : 0);
	if (st.date && !st.have_wday) {
		if (st.have_yday && !(st.have_mon && st.have_mday)) {
			int m = 0;
			while (m < 11 && yday(tm->tm_year, m + 1, 1) <= tm->tm_yday)
				m++;
			tm->tm_mon = m;
			tm->tm_mday = tm->tm_yday - yday(tm->tm_year, m, 1) + 1;
		}
		tm->tm_wday = wday(1900L + tm->tm_year, tm->tm_mon, tm->tm_mday);
	}
	if (st.date && !st.have_yday)
		tm->tm_yday = yday(tm->tm_year, tm->tm_mon, tm->tm_mday);
	return (char *)s;
}
