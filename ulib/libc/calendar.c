/* Calendar time, UTC only (there are no time zones): gmtime, mktime, asctime (strftime.c). */
#include <time.h>
#include <stdio.h>
#include <string.h>

/* Days since 1970-01-01 and back (Howard Hinnant's algorithms). */
static long days_from_civil(long y, int m, int d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

struct tm *gmtime_r(const time_t *t, struct tm *tm)
{
	long days = *t / 86400, secs = *t % 86400;
	if (secs < 0)
		secs += 86400, days--;
	tm->tm_hour = (int)(secs / 3600);
	tm->tm_min = (int)(secs / 60 % 60);
	tm->tm_sec = (int)(secs % 60);
	tm->tm_wday = (int)(((days + 4) % 7 + 7) % 7);
	long z = days + 719468;
	long era = (z >= 0 ? z : z - 146096) / 146097;
	long doe = z - era * 146097;
	long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long mp = (5 * doy + 2) / 153;
	int d = (int)(doy - (153 * mp + 2) / 5 + 1);
	int m = (int)(mp < 10 ? mp + 3 : mp - 9);
	long y = yoe + era * 400 + (m <= 2);
	tm->tm_year = (int)(y - 1900);
	tm->tm_mon = m - 1;
	tm->tm_mday = d;
	tm->tm_yday = (int)(days - days_from_civil(y, 1, 1));
	tm->tm_isdst = 0;
	tm->tm_gmtoff = 0;
	tm->tm_zone = "UTC";
	return tm;
}

struct tm *gmtime(const time_t *t)
{
	static struct tm tm;
	return gmtime_r(t, &tm);
}

struct tm *localtime_r(const time_t *t, struct tm *tm) { return gmtime_r(t, tm); }
struct tm *localtime(const time_t *t) { return gmtime(t); }

/* Normalizes *tm (fields out of range carry over) and returns its time. */
time_t timegm(struct tm *tm)
{
	long y = tm->tm_year + 1900L + tm->tm_mon / 12;
	int m = tm->tm_mon % 12;
	if (m < 0)
		m += 12, y--;
	time_t t = (time_t)days_from_civil(y, m + 1, 1) * 86400 + (tm->tm_mday - 1) * 86400L +
		   tm->tm_hour * 3600L + tm->tm_min * 60L + tm->tm_sec;
	gmtime_r(&t, tm);
	return t;
}

time_t mktime(struct tm *tm) { return timegm(tm); }

char *asctime(const struct tm *tm)
{
	static char buf[32];
	strftime(buf, sizeof buf, "%c\n", tm);
	return buf;
}

char *ctime(const time_t *t)
{
	return asctime(gmtime(t));
}

char *asctime_r(const struct tm *tm, char *buf)
{
	strftime(buf, 26, "%c\n", tm);
	return buf;
}

char *ctime_r(const time_t *t, char *buf)
{
	struct tm tm;
	return gmtime_r(t, &tm) ? asctime_r(&tm, buf) : 0;
}

