/*
 * langinfo: every item of <langinfo.h> POSIX lists, through nl_langinfo
 * and nl_langinfo_l, against what glibc 2.36 returns in the C locale
 * (LC_ALL=C on the host: CODESET is "ANSI_X3.4-1968", ERA ... and
 * THOUSEP ""), an unknown item "", setlocale's "C" and "POSIX" leaving
 * them so, and strftime/strptime agreeing with the items they use.
 * Prints one "item NAME [value]" line per item, then
 * @result {"name": "langinfo", "checks": N, "failures": F}.
 */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CHECK_NAME "langinfo"
#include <check.h>

struct item { nl_item item; const char *name, *want; };

#define I(x, v) { x, #x, v }
static const struct item items[] = {
	I(CODESET, "ANSI_X3.4-1968"), I(D_T_FMT, "%a %b %e %H:%M:%S %Y"),
	I(D_FMT, "%m/%d/%y"), I(T_FMT, "%H:%M:%S"), I(T_FMT_AMPM, "%I:%M:%S %p"),
	I(AM_STR, "AM"), I(PM_STR, "PM"),
	I(DAY_1, "Sunday"), I(DAY_2, "Monday"), I(DAY_3, "Tuesday"), I(DAY_4, "Wednesday"),
	I(DAY_5, "Thursday"), I(DAY_6, "Friday"), I(DAY_7, "Saturday"),
	I(ABDAY_1, "Sun"), I(ABDAY_2, "Mon"), I(ABDAY_3, "Tue"), I(ABDAY_4, "Wed"),
	I(ABDAY_5, "Thu"), I(ABDAY_6, "Fri"), I(ABDAY_7, "Sat"),
	I(MON_1, "January"), I(MON_2, "February"), I(MON_3, "March"), I(MON_4, "April"),
	I(MON_5, "May"), I(MON_6, "June"), I(MON_7, "July"), I(MON_8, "August"),
	I(MON_9, "September"), I(MON_10, "October"), I(MON_11, "November"),
	I(MON_12, "December"),
	I(ABMON_1, "Jan"), I(ABMON_2, "Feb"), I(ABMON_3, "Mar"), I(ABMON_4, "Apr"),
	I(ABMON_5, "May"), I(ABMON_6, "Jun"), I(ABMON_7, "Jul"), I(ABMON_8, "Aug"),
	I(ABMON_9, "Sep"), I(ABMON_10, "Oct"), I(ABMON_11, "Nov"), I(ABMON_12, "Dec"),
	I(ERA, ""), I(ERA_D_FMT, ""), I(ALT_DIGITS, ""), I(ERA_D_T_FMT, ""), I(ERA_T_FMT, ""),
	I(RADIXCHAR, "."), I(THOUSEP, ""), I(YESEXPR, "^[yY]"), I(NOEXPR, "^[nN]"),
	I(CRNCYSTR, "-"),
};
#define NITEMS (int)(sizeof items / sizeof *items)

static void all_items(int print)
{
	for (int i = 0; i < NITEMS; i++) {
		const char *v = nl_langinfo(items[i].item);
		CHECK(v && !strcmp(v, items[i].want));
		CHECK(!strcmp(nl_langinfo_l(items[i].item, (locale_t)0), items[i].want));
		if (print)
			printf("item %s [%s]\n", items[i].name, v ? v : "(null)");
		for (int j = 0; j < i; j++)        /* distinct items */
			CHECK(items[j].item != items[i].item);
	}
}

/* strftime and strptime print and read the same strings. */
static void time_functions(void)
{
	struct tm tm = { .tm_year = 126, .tm_mon = 11, .tm_mday = 1, .tm_hour = 13,
			 .tm_min = 5, .tm_sec = 9, .tm_wday = 2, .tm_yday = 334 };
	char a[128], b[128];
	const char *pairs[][2] = { { "%c", nl_langinfo(D_T_FMT) }, { "%x", nl_langinfo(D_FMT) },
				   { "%X", nl_langinfo(T_FMT) }, { "%r", nl_langinfo(T_FMT_AMPM) } };
	for (int i = 0; i < 4; i++) {
		CHECK(strftime(a, sizeof a, pairs[i][0], &tm) > 0);
		CHECK(strftime(b, sizeof b, pairs[i][1], &tm) > 0);
		CHECK(!strcmp(a, b));
	}
	CHECK(strftime(a, sizeof a, "%c", &tm) && !strcmp(a, "Tue Dec  1 13:05:09 2026"));
	CHECK(strftime(a, sizeof a, "%A %a %B %b %p %P", &tm) &&
	      !strcmp(a, "Tuesday Tue December Dec PM pm"));
	for (int d = 0; d < 7; d++) {
		struct tm t = { .tm_wday = -1 };
		CHECK(strptime(nl_langinfo(DAY_1 + d), "%A", &t) && t.tm_wday == d);
		t.tm_wday = -1;
		CHECK(strptime(nl_langinfo(ABDAY_1 + d), "%a", &t) && t.tm_wday == d);
	}
	for (int m = 0; m < 12; m++) {
		struct tm t = { .tm_mon = -1 };
		CHECK(strptime(nl_langinfo(MON_1 + m), "%B", &t) && t.tm_mon == m);
		t.tm_mon = -1;
		CHECK(strptime(nl_langinfo(ABMON_1 + m), "%b", &t) && t.tm_mon == m);
	}
	struct tm t = { 0 };
	CHECK(strptime("01:02:03 PM", nl_langinfo(T_FMT_AMPM), &t) && t.tm_hour == 13);
}

int main(void)
{
	all_items(1);
	CHECK(!strcmp(nl_langinfo(-1), ""));
	CHECK(!strcmp(nl_langinfo(100000), ""));
	CHECK(!strcmp(nl_langinfo_l(-1, (locale_t)0), ""));
	/* the locales there are: "C", and "POSIX" and "" naming it */
	CHECK(setlocale(LC_ALL, "POSIX") && setlocale(LC_ALL, ""));
	CHECK(!setlocale(LC_ALL, "C.UTF-8"));
	CHECK(setlocale(LC_ALL, "C"));
	all_items(0);
	time_functions();
	printf("@result {\"name\": \"langinfo\", \"checks\": %d, \"failures\": %d}\n", checks,
	       failures);
	return failures != 0;
}
