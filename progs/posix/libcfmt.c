/*
 * libcfmt: the formats a C library test suite found missing or wrong in
 * ulib (issue 34), each checked against the string glibc gives for the
 * same call (the file builds on Linux with -DHOST, which leaves out the
 * checks glibc does not pass and prints the counts plainly):
 * printf's %a and %A (hex floats, exact, rounding a precision to
 * nearest-even, subnormals, long double, flags and width), strftime's
 * every C99/POSIX conversion with glibc's flags, width and E/O
 * modifiers, and POSIX.1-2008's '+' flag (which glibc lacks: those
 * checks follow the standard's text). One @result {"name": "libcfmt",
 * "checks": N, "failures": F}.
 */
#define _GNU_SOURCE
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifndef HOST
#include <animalib/result.h>
#endif
#define CHECK_NAME "libcfmt"
#ifdef HOST
#include <stdbool.h>
static int checks, failures;
#define CHECK(e) (checks++, (e) ? 0 : (failures++, printf("FAIL line %d: %s\n", __LINE__, #e)))
#else
#include <check.h>
#endif

static char out[256];

/* snprintf's text and count both as expected. */
static int fa(const char *want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fa(const char *want, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out, sizeof out, fmt, ap);
	va_end(ap);
	if (n != (int)strlen(want) || strcmp(out, want)) {
		printf("libcfmt: \"%s\" gave \"%s\" (%d), not \"%s\"\n", fmt, out, n, want);
		return 0;
	}
	return 1;
}

static void hexfloat(void)
{
	CHECK(fa("0x1p+0", "%a", 1.0));
	CHECK(fa("0x1.999999999999ap-4", "%a", 0.1));
	CHECK(fa("-0X1.999999999999AP-4", "%A", -0.1));
	CHECK(fa("0x0p+0 -0x0p+0", "%a %a", 0.0, -0.0));
	CHECK(fa("0x1.fffffffffffffp+1023", "%a", DBL_MAX));
	CHECK(fa("0x1p-1022", "%a", DBL_MIN));
	/* subnormals: 0x0.xxx with the smallest normal exponent */
	CHECK(fa("0x0.0000000000001p-1022", "%a", 0x1p-1074));
	CHECK(fa("0x0.8p-1022", "%a", 0x1p-1023));
	/* a precision rounds to nearest, a tie to the even digit; a carry
	   may give a leading 2 */
	CHECK(fa("0x2p+0 0x1p+1 0x1p-1", "%.0a %.0a %.0a", 1.5, 2.5, 0.5));
	CHECK(fa("0x2.0p+0", "%.1a", 0x1.f8p0));
	CHECK(fa("0x1.99ap-4", "%.3a", 0.1));
	CHECK(fa("0x1.000p+0 0x1.002p+0", "%.3a %.3a", 0x1.0008p0, 0x1.0018p0));
	CHECK(fa("0x2p+1023", "%.0a", DBL_MAX));
	CHECK(fa("0x1.999999999999a0000000p-4", "%.20a", 0.1));
	/* flags and width */
	CHECK(fa("0x1.p+0", "%#a", 1.0));
	CHECK(fa("0x1.p+0", "%#.0a", 1.2));
	CHECK(fa("+0x1p+0| 0x1p+0", "%+a|% a", 1.0, 1.0));
	CHECK(fa("0x00001p+0|0x1p+0    |", "%010a|%-10a|", 1.0, 1.0));
	CHECK(fa("-0X0001.0P+3", "%+012.1A", -8.0));
	CHECK(fa("0x1.99ap-4", "%10.3a", 0.1));
	CHECK(fa(" 0x1.99ap-4", "%11.3a", 0.1));
	CHECK(fa("inf -INF nan", "%a %A %a", INFINITY, -INFINITY, NAN));
	CHECK(fa("       inf", "%010a", INFINITY));
	/* long double: the 64-bit significand as it is */
	CHECK(fa("0x8p-3", "%La", 1.0L));
	CHECK(fa("0xc.ccccccccccccccdp-7", "%La", 0.1L));
	CHECK(fa("0x1p+4 0x1.0p+4", "%.0La %.1La", 15.5L, 15.97L));
	CHECK(fa("0x0.000000000000001p-16385", "%La", 0x1p-16445L));
	/* glibc keeps a NaN's sign, in %f too */
	CHECK(fa("-nan -nan", "%f %a", -NAN, -NAN));
}

static const struct tm y2016 = { .tm_sec = 45, .tm_min = 23, .tm_hour = 13, .tm_mday = 3,
				 .tm_mon = 0, .tm_year = 116, .tm_wday = 0, .tm_yday = 2 };
static const struct tm y10009 = { .tm_sec = 53, .tm_min = 17, .tm_hour = 5, .tm_mday = 5,
				  .tm_mon = 0, .tm_year = 10009 - 1900, .tm_wday = 1, .tm_yday = 4 };
static const struct tm yzero = { .tm_hour = 12, .tm_mday = 23, .tm_mon = 1, .tm_year = -1900,
			      .tm_wday = 3, .tm_yday = 53 };
static const struct tm yneg = { .tm_mday = 1, .tm_year = -123 - 1900, .tm_wday = 1 };
static const struct tm ybig = { .tm_mday = 1, .tm_year = INT_MAX, .tm_wday = 3 };

static int st(const char *want, const char *fmt, const struct tm *tm)
{
	size_t n = strftime(out, sizeof out, fmt, tm);
	if (n != strlen(want) || (n && strcmp(out, want))) {
		printf("libcfmt: strftime \"%s\" gave \"%s\" (%zu), not \"%s\"\n", fmt,
		       n ? out : "", n, want);
		return 0;
	}
	return 1;
}

static void times(void)
{
	const struct tm *t = &y2016;
	CHECK(st("Sun Jan  3 13:23:45 2016", "%c", t));
	CHECK(st("20 16 2016 15 2015 53 01 00 7 0", "%C %y %Y %g %G %V %U %W %u %w", t));
	CHECK(st("01/03/16 13:23:45 01:23:45 PM 13:23 2016-01-03", "%D %T %r %R %F", t));
	CHECK(st(" 3 003 13  1 01 pm PM", "%e %j %k %l %I %P %p", t));
	CHECK(st("1451827425 +0000 UTC", "%s %z %Z", t));
	CHECK(st("a\tb\nc%", "a%tb%nc%%", t));
	CHECK(st("Sunday Sun January Jan Jan", "%A %a %B %b %h", t));
	CHECK(st("01/03/16 13:23:45 20 16 03 13", "%Ex %EX %EC %Ey %Od %OH", t));
	/* glibc's flags: _ pads with spaces, - not at all, 0 with zeros,
	   ^ upper case, # swaps a name's case */
	CHECK(st(" 3|3|03|    3|00003", "%_d|%-d|%0e|%_5d|%5d", t));
	CHECK(st("SUN|SUNDAY|pm|   JANUARY|0000000Sun", "%^a|%#A|%#p|%^10B|%010a", t));
	CHECK(st("0000002016|      2016|002016-01-03|     13:23", "%10Y|%_10Y|%012F|%10R", t));
	/* years past 9999, year 0, before year 0, and tm_year INT_MAX */
	CHECK(st("Mon Jan  5 05:17:53 10009 100 09 10009", "%c %C %g %G", &y10009));
	CHECK(st("02 01 01 253686748673", "%V %U %W %s", &y10009));
	CHECK(st("Wed Feb 23 12:00:00 0 0 00 0000 08 08 08", "%c %C %y %04G %V %U %W", &yzero));
	CHECK(st("-123 -2 77 -0123 -123-01-01 00-123-01-01", "%Y %C %y %05Y %F %012F", &yneg));
	CHECK(st("47 67768036160140800", "%y %s", &ybig));
	/* not conversions: copied as written */
	CHECK(st("%q %Oa %EF", "%q %Oa %EF", t));
	CHECK(strftime(out, 10, "%c", t) == 0);     /* too long for the buffer */
#ifndef HOST
	/* POSIX.1-2008's '+': zeros, and '+' before a year needing more
	   digits than usual (4; 2 for %C) or a wider field */
	CHECK(st("2016 +2016 +20 +2015", "%+4Y %+5Y %+3C %+5G", t));
	CHECK(st("2016-01-03 +2016-01-03", "%+10F %+11F", t));
	CHECK(st("+10009 +10009-01-05", "%+Y %+F", &y10009));
	CHECK(st("+0000 0000", "%+5Y %+4Y", &yzero));
	CHECK(st("-123 -0123", "%+4Y %+5Y", &yneg));
	/* glibc's %Y adds 1900 in int and prints -2147481749 here */
	CHECK(st("2147485547 21474855", "%Y %C", &ybig));
#endif
}

int main(void)
{
	hexfloat();
	times();
#ifdef HOST
	printf("checks %d failures %d\n", checks, failures);
#else
	struct result r;
	result_begin(&r, "libcfmt");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
#endif
	return failures != 0;
}
