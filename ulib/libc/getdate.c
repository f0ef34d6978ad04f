/*
 * getdate (XSI) and GNU's getdate_r: a date read by the first template
 * of the file $DATEMSK that takes the whole text (strptime, trailing
 * spaces allowed), the fields it left out filled in from now as POSIX
 * says: no time of day is now's; a time alone is today, or tomorrow if
 * it has passed today; a weekday alone is its next day (today if it is
 * today); a month without a year is this year's, or next year's if it
 * has passed, and a month or year without a day its first day (glibc's
 * getdate takes a weekday worked out for the date instead: "March 2031"
 * is 2031-03-05 under glibc 2.36). Errors are POSIX's getdate_err numbers, checked in
 * glibc's order (1 no DATEMSK, 3 stat fails, 4 not a regular file,
 * 2 not readable, 5 a read error, 7 no template takes it, 8 the date
 * cannot be represented).
 */
#define _GNU_SOURCE
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <unistd.h>
#include <sys/stat.h>

int getdate_err;

enum { F_WDAY = 1, F_MDAY = 2, F_MON = 4, F_YEAR = 8, F_HOUR = 16, F_MIN = 32, F_SEC = 64,
       F_DATE = F_MDAY | F_MON | F_YEAR, F_TIME = F_HOUR | F_MIN | F_SEC };

/* Which fields a template's conversions set. */
static int fields(const char *f)
{
	int have = 0;
	for (; *f; f++) {
		if (*f != '%')
			continue;
		if (f[1] == 'E' || f[1] == 'O')
			f++;
		switch (*++f) {
		case 'a': case 'A': case 'u': case 'w': have |= F_WDAY; break;
		case 'd': case 'e': have |= F_MDAY; break;
		case 'b': case 'B': case 'h': case 'm': have |= F_MON; break;
		case 'y': case 'Y': case 'C': have |= F_YEAR; break;
		case 'j': case 'D': case 'F': case 'x': have |= F_DATE; break;
		case 'H': case 'I': case 'k': case 'l': have |= F_HOUR; break;
		case 'M': have |= F_MIN; break;
		case 'S': have |= F_SEC; break;
		case 'R': have |= F_HOUR | F_MIN; break;
		case 'T': case 'r': case 'X': have |= F_TIME; break;
		case 'c': case 's': have |= F_DATE | F_TIME | F_WDAY; break;
		case '\0': return have;
		}
	}
	return have;
}

/* The first template of the open file that takes all of s. */
static int match(FILE *fp, const char *s, struct tm *tm, int *have)
{
	char line[512];
	while (fgets(line, sizeof line, fp)) {
		line[strcspn(line, "\n")] = 0;
		memset(tm, 0, sizeof *tm);
		const char *end = strptime(s, line, tm);
		if (!end)
			continue;
		while (isspace((unsigned char)*end))
			end++;
		if (!*end) {
			*have = fields(line);
			return 0;
		}
	}
	return ferror(fp) ? 5 : 7;
}

/* The fields the template left out, from now (`cur`, local time). */
static void complete(struct tm *tm, int have, const struct tm *cur)
{
	if (!(have & F_TIME)) {
		tm->tm_hour = cur->tm_hour;
		tm->tm_min = cur->tm_min;
		tm->tm_sec = cur->tm_sec;
	}
	if (!(have & F_DATE)) {
		tm->tm_year = cur->tm_year;
		tm->tm_mon = cur->tm_mon;
		tm->tm_mday = cur->tm_mday;
		if (have & F_WDAY)
			tm->tm_mday += (tm->tm_wday - cur->tm_wday + 7) % 7;
		else if ((have & F_TIME) &&
			 tm->tm_hour * 3600 + tm->tm_min * 60 + tm->tm_sec <
			 cur->tm_hour * 3600 + cur->tm_min * 60 + cur->tm_sec)
			tm->tm_mday++;
		return;
	}
	if (!(have & F_YEAR)) {
		tm->tm_year = cur->tm_year;
		if ((have & F_MON) && tm->tm_mon < cur->tm_mon)
			tm->tm_year++;
	}
	if (!(have & F_MON))
		tm->tm_mon = cur->tm_mon;
	if (!(have & F_MDAY))
		tm->tm_mday = have & (F_MON | F_YEAR) ? 1 : cur->tm_mday;
}

int getdate_r(const char *s, struct tm *res)
{
	const char *path = getenv("DATEMSK");
	struct stat st;
	if (!path || !*path)
		return 1;
	if (stat(path, &st) < 0)
		return 3;
	if (!S_ISREG(st.st_mode))
		return 4;
	FILE *fp = access(path, R_OK) < 0 ? 0 : fopen(path, "r");
	if (!fp)
		return 2;
	struct tm tm;
	int have = 0, e = match(fp, s, &tm, &have);
	fclose(fp);
	if (e)
		return e;
	time_t now = time(0);
	struct tm cur;
	localtime_r(&now, &cur);
	complete(&tm, have, &cur);
	tm.tm_isdst = -1;
	if (mktime(&tm) == (time_t)-1)
		return 8;
	*res = tm;
	return 0;
}

struct tm *getdate(const char *s)
{
	static struct tm tm;   /* POSIX: the result may be overwritten by the next call */
	int e = getdate_r(s, &tm);
	if (e) {
		getdate_err = e;
		return 0;
	}
	return &tm;
}
