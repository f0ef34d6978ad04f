/*
 * getdatex: getdate and getdate_r (<time.h>, ulib/libc/getdate.c;
 * harness/tests/test_getdatex.py). Without $DATEMSK, with it naming no
 * file and naming a directory: getdate_err 1, 3 and 4. With a template
 * file on the RAM disk: a full date and time read exactly (its weekday
 * and day of the year worked out), a date alone taking now's time of
 * day, a month and year taking the first day, a weekday alone the next
 * such day (today if today), a time alone today or tomorrow, trailing
 * spaces allowed, and text no template takes all of (7). Before, ulib
 * had no getdate (the Open POSIX suite's time_h 19-1 did not build).
 */
#define CHECK_NAME "getdatex"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <animalib/result.h>
#include <check.h>

static const char *const templates =
	"%Y-%m-%d %H:%M:%S\n"
	"%d/%m/%Y\n"
	"%B %Y\n"
	"%A\n"
	"%H:%M\n";

/* Seconds since midnight. */
static long tod(const struct tm *t)
{
	return t->tm_hour * 3600L + t->tm_min * 60 + t->tm_sec;
}

/* Whole days from a to b (each at midnight), by their UTC calendars. */
static long days(const struct tm *a, const struct tm *b)
{
	struct tm x = *a, y = *b;
	x.tm_hour = x.tm_min = x.tm_sec = 0;
	y.tm_hour = y.tm_min = y.tm_sec = 0;
	return (long)((timegm(&y) - timegm(&x)) / 86400);
}

static void errors(void)
{
	unsetenv("DATEMSK");
	getdate_err = 0;
	CHECK(getdate("12:00") == 0 && getdate_err == 1);
	setenv("DATEMSK", "/tmp/no-such-templates", 1);
	CHECK(getdate("12:00") == 0 && getdate_err == 3);
	setenv("DATEMSK", "/tmp", 1);
	CHECK(getdate("12:00") == 0 && getdate_err == 4);
	struct tm t;
	CHECK(getdate_r("12:00", &t) == 4);
}

static void reads(void)
{
	FILE *f = fopen("/tmp/datemsk", "w");
	CHECK(f && fputs(templates, f) >= 0 && fclose(f) == 0);
	setenv("DATEMSK", "/tmp/datemsk", 1);

	struct tm *t = getdate("2024-02-29 13:45:10");
	CHECK(t && t->tm_year == 124 && t->tm_mon == 1 && t->tm_mday == 29);
	CHECK(t && t->tm_hour == 13 && t->tm_min == 45 && t->tm_sec == 10);
	CHECK(t && t->tm_wday == 4 && t->tm_yday == 59);   /* a Thursday, day 60 */

	time_t now = time(0);
	struct tm cur;
	localtime_r(&now, &cur);
	t = getdate("25/12/2030");
	CHECK(t && t->tm_year == 130 && t->tm_mon == 11 && t->tm_mday == 25 && t->tm_wday == 3);
	CHECK(t && (tod(t) - tod(&cur) + 86400) % 86400 < 5);   /* now's time of day */

	t = getdate("March 2031");
	CHECK(t && t->tm_year == 131 && t->tm_mon == 2 && t->tm_mday == 1);

	now = time(0);
	localtime_r(&now, &cur);
	t = getdate("Friday");
	CHECK(t && t->tm_wday == 5);
	long d = t ? days(&cur, t) : -1;
	CHECK(d >= 0 && d <= 6 && (d == 0) == (cur.tm_wday == 5));

	now = time(0);
	localtime_r(&now, &cur);
	struct tm r;
	CHECK(getdate_r("12:00  ", &r) == 0);
	CHECK(r.tm_hour == 12 && r.tm_min == 0 && r.tm_sec == 0);
	CHECK(days(&cur, &r) == (tod(&cur) > 12 * 3600L ? 1 : 0));

	getdate_err = 0;
	CHECK(getdate("no date at all") == 0 && getdate_err == 7);
	getdate_err = 0;
	CHECK(getdate("2024-02-29 13:45:10 and more") == 0 && getdate_err == 7);
	remove("/tmp/datemsk");
}

int main(void)
{
	struct result res;
	errors();
	reads();
	result_begin(&res, "getdatex");
	result_int(&res, "checks", checks);
	result_int(&res, "failures", failures);
	result_end(&res);
	return failures != 0;
}
