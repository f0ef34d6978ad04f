/* Calendar time, UTC only (there are no time zones): gmtime, mktime, strftime. */
#include <time.h>
#include <stdio.h>
#include <string.h>

static const char *const wday[] = { "Sunday", "Monday", "Tuesday", "Wednesday",
				    "Thursday", "Friday", "Saturday" };
static const char *const mon[] = { "January", "February", "March", "April", "May", "June",
				   "July", "August", "September", "October", "November", "December" };

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

/* The common conversions: a A b B c d e F H I j m M n p S t T u w y Y z Z %. */
size_t strftime(char *s, size_t n, const char *f, const struct tm *tm)
{
	size_t len = 0;
	char tmp[64];
	for (; *f; f++) {
		const char *add = tmp;
		if (*f != '%') {
			tmp[0] = *f, tmp[1] = 0;
		} else {
			switch (*++f) {
			case 'a': snprintf(tmp, sizeof tmp, "%.3s", wday[tm->tm_wday % 7]); break;
			case 'A': add = wday[tm->tm_wday % 7]; break;
			case 'b': case 'h': snprintf(tmp, sizeof tmp, "%.3s", mon[tm->tm_mon % 12]); break;
			case 'B': add = mon[tm->tm_mon % 12]; break;
			case 'c': snprintf(tmp, sizeof tmp, "%.3s %.3s %2d %02d:%02d:%02d %d",
					   wday[tm->tm_wday % 7], mon[tm->tm_mon % 12], tm->tm_mday,
					   tm->tm_hour, tm->tm_min, tm->tm_sec, tm->tm_year + 1900); break;
			case 'd': snprintf(tmp, sizeof tmp, "%02d", tm->tm_mday); break;
			case 'e': snprintf(tmp, sizeof tmp, "%2d", tm->tm_mday); break;
			case 'F': snprintf(tmp, sizeof tmp, "%d-%02d-%02d", tm->tm_year + 1900,
					   tm->tm_mon + 1, tm->tm_mday); break;
			case 'H': snprintf(tmp, sizeof tmp, "%02d", tm->tm_hour); break;
			case 'I': snprintf(tmp, sizeof tmp, "%02d", (tm->tm_hour + 11) % 12 + 1); break;
			case 'j': snprintf(tmp, sizeof tmp, "%03d", tm->tm_yday + 1); break;
			case 'm': snprintf(tmp, sizeof tmp, "%02d", tm->tm_mon + 1); break;
			case 'M': snprintf(tmp, sizeof tmp, "%02d", tm->tm_min); break;
			case 'n': add = "\n"; break;
			case 'p': add = tm->tm_hour < 12 ? "AM" : "PM"; break;
			case 'S': snprintf(tmp, sizeof tmp, "%02d", tm->tm_sec); break;
			case 't': add = "\t"; break;
			case 'T': snprintf(tmp, sizeof tmp, "%02d:%02d:%02d", tm->tm_hour, tm->tm_min,
					   tm->tm_sec); break;
			case 'u': snprintf(tmp, sizeof tmp, "%d", tm->tm_wday ? tm->tm_wday : 7); break;
			case 'w': snprintf(tmp, sizeof tmp, "%d", tm->tm_wday); break;
			case 'y': snprintf(tmp, sizeof tmp, "%02d", (tm->tm_year + 1900) % 100); break;
			case 'Y': snprintf(tmp, sizeof tmp, "%d", tm->tm_year + 1900); break;
			case 'z': add = "+0000"; break;
			case 'Z': add = "UTC"; break;
			case '%': add = "%"; break;
			default: return 0;   /* unknown conversion (or a trailing %) */
			}
		}
		size_t k = strlen(add);
		if (len + k >= n)
			return 0;
		memcpy(s + len, add, k);
		len += k;
	}
	if (n)
		s[len] = 0;
	return len;
}

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

