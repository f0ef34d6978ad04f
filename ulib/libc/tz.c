/*
 * The time zone: UTC, the only one here (localtime is gmtime, TZ is not
 * read): tzset sets tzname to "UTC" twice, timezone and daylight to 0,
 * what glibc gives with TZ unset and no /etc/localtime. The variables
 * are weak, so a program that has its own (BSD's timezone() function,
 * say) keeps it.
 */
#include <time.h>

__attribute__((weak)) char *tzname[2] = { "UTC", "UTC" };
__attribute__((weak)) long timezone;
__attribute__((weak)) int daylight;

void tzset(void)
{
	tzname[0] = tzname[1] = "UTC";
	timezone = 0;
	daylight = 0;
}
